import type { SqlHandle } from "@runifold/store";

/** Expired rows removed per insert: bounded, so one call never pays for a backlog. */
const PURGE_PER_INSERT = 100;

/**
 * Records the run an ordinary legacy tools/call created under its JSON-RPC request ID (JSON text),
 * kept until `ttlMs` from now, and purges up to PURGE_PER_INSERT expired rows in the same statement.
 * A session that ended meanwhile records the call without it (it can then only match by credential).
 */
export async function recordOrdinaryCall(
  sql: SqlHandle,
  params: { runId: string; tenantId: string; keyId: string; sessionIdSha256: string | null; requestId: string; ttlMs: number },
): Promise<void> {
  await sql.unsafe(
    `WITH purged AS (
       DELETE FROM mcp_ordinary_calls WHERE run_id IN (
         SELECT run_id FROM mcp_ordinary_calls WHERE expires_at <= now() ORDER BY expires_at LIMIT ${PURGE_PER_INSERT}
       )
     )
     INSERT INTO mcp_ordinary_calls (run_id, tenant_id, key_id, session_id_sha256, request_id, expires_at)
     VALUES ($1::uuid, $2::uuid, $3, (SELECT id_sha256 FROM mcp_sessions WHERE id_sha256 = $4), $5,
             now() + $6::float8 * interval '1 millisecond')
     ON CONFLICT (run_id) DO NOTHING`,
    [params.runId, params.tenantId, params.keyId, params.sessionIdSha256, params.requestId, params.ttlMs],
  );
}

/**
 * The runs, not in one of `terminalStatuses`, that ordinary calls of this credential created under
 * this request ID: in this session, or (sessionIdSha256 null) made without one. At most two are
 * returned, enough for the caller to tell a unique match from an ambiguous one.
 */
export async function findOrdinaryCallRuns(
  sql: SqlHandle,
  params: {
    tenantId: string;
    keyId: string;
    sessionIdSha256: string | null;
    requestId: string;
    terminalStatuses: readonly string[];
  },
): Promise<string[]> {
  const rows = await sql.unsafe<{ run_id: string }[]>(
    `SELECT c.run_id::text AS run_id FROM mcp_ordinary_calls c JOIN runs r ON r.id = c.run_id AND r.tenant_id = c.tenant_id
      WHERE c.tenant_id = $1::uuid AND c.key_id = $2 AND c.request_id = $3 AND c.expires_at > now()
        AND c.session_id_sha256 IS NOT DISTINCT FROM $4 AND r.status <> ALL($5::text[])
      ORDER BY c.created_at DESC LIMIT 2`,
    [params.tenantId, params.keyId, params.requestId, params.sessionIdSha256, [...params.terminalStatuses]],
  );
  return rows.map((row) => row.run_id);
}

/**
 * Raises a task's progress high-water mark to `progress` if it is higher; true when it was raised
 * (the caller may then send that value, and no stream will send it or a lower one again).
 */
export async function raiseProgressMark(sql: SqlHandle, params: { runId: string; progress: number }): Promise<boolean> {
  const rows = await sql.unsafe(
    `INSERT INTO mcp_progress_marks (run_id, progress) VALUES ($1::uuid, $2::float8)
     ON CONFLICT (run_id) DO UPDATE SET progress = EXCLUDED.progress, updated_at = now()
      WHERE mcp_progress_marks.progress < EXCLUDED.progress
     RETURNING 1`,
    [params.runId, params.progress],
  );
  return rows.length > 0;
}

/** Drops a task's progress mark (it is terminal: nothing more is sent for its token). */
export async function dropProgressMark(sql: SqlHandle, runId: string): Promise<void> {
  await sql.unsafe("DELETE FROM mcp_progress_marks WHERE run_id = $1::uuid", [runId]);
}

/** Forgets an ordinary call's request ID (the call was answered: a later cancellation has nothing to stop). */
export async function forgetOrdinaryCall(sql: SqlHandle, runId: string): Promise<void> {
  await sql.unsafe("DELETE FROM mcp_ordinary_calls WHERE run_id = $1::uuid", [runId]);
}
