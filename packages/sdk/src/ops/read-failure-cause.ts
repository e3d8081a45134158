import type { SqlHandle } from "@runifold/store";
import type { FailureCause } from "../failure-cause";

/**
 * The stored failure cause of a run, for operators (the task page, the CLI). `tenantIds` scopes the
 * lookup: a run outside them answers undefined, like an unknown one. Never put this in front of an
 * MCP client: its message may carry internals (failure-cause.ts).
 */
export async function readFailureCause(
  sql: SqlHandle,
  params: { runId: string; tenantIds?: string[] },
): Promise<FailureCause | undefined> {
  const rows = await sql.unsafe<{ failure: FailureCause | null }[]>(
    "SELECT failure FROM runs WHERE id = $1 AND ($2::uuid[] IS NULL OR tenant_id = ANY($2::uuid[]))",
    [params.runId, params.tenantIds ?? null],
  );
  return rows[0]?.failure ?? undefined;
}
