import { randomBytes } from "node:crypto";
import type postgres from "postgres";
import { findOperatorById, insertOperatorSession } from "../../db/queries/operators";
import type { OperatorContext } from "../../lib/auth";
import { contextFor } from "../ui/helpers";

/**
 * A console context as the web context builds it after a real sign-in: a session row plus the
 * session claims (id and session version) that requireOperator checks on every request.
 */
export async function signedInContext(sql: postgres.Sql, operatorId: string): Promise<OperatorContext & { sessionId: string }> {
  const sessionId = randomBytes(12).toString("base64url");
  await insertOperatorSession(sql, { id: sessionId, operatorId, maxAgeMs: 3_600_000 });
  const version = (await findOperatorById(sql, operatorId))?.session_version ?? -1;
  return {
    ...contextFor(sql, operatorId),
    sessionClaims: async () => ({ sessionId, sessionVersion: version }),
    sessionId,
  };
}
