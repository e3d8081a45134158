import { verifyApiKey } from "../../../lib/auth";
import type { Diagnosis } from "../../../lib/tasks";
import { readDiagnosis } from "../../../lib/tasks";
import type { Parsed } from "../../args";
import { clientKey } from "../../connect";
import { withDatabase } from "../../db";
import type { CliIo } from "../registry";

/**
 * On an operator's machine (DATABASE_URL, or the embedded store of a running `npm start`), `tasks
 * get` adds the same plain-language diagnosis the UI shows. The tenant comes from the API key, as
 * on the MCP endpoint. Anywhere else the store is out of reach and the diagnosis is simply omitted.
 */
export async function diagnoseIfPossible(parsed: Parsed, io: CliIo, taskId: string): Promise<Diagnosis | undefined> {
  const key = clientKey(parsed, io);
  if (!key) return undefined;
  try {
    return await withDatabase(io, async (sql) => {
      const principal = await verifyApiKey(sql, key);
      return principal ? readDiagnosis(sql, { tenantId: principal.tenantId, taskId }) : undefined;
    });
  } catch {
    return undefined;
  }
}
