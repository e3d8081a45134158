import { jsonParam, PREPARED, type SqlHandle } from "@runifold/store";

/** A legacy MCP session as the protocol layer reads it (lib/mcp/legacy/session.ts). */
export type McpSessionRow = {
  tenant_id: string;
  key_id: string;
  protocol_version: string;
  client_capabilities: Record<string, unknown>;
  expires_at: Date;
};

/** Expired sessions removed per insert: bounded, so one initialize never pays for a backlog. */
const PURGE_PER_INSERT = 100;

/**
 * Records a new session and, in the same statement, deletes up to PURGE_PER_INSERT expired ones
 * (mcp_sessions_expires_idx). Sessions are only ever created here, so purging on insert keeps the
 * table at about the number of live sessions with no timer of its own.
 */
export async function insertMcpSession(
  sql: SqlHandle,
  params: {
    idSha256: string;
    tenantId: string;
    keyId: string;
    protocolVersion: string;
    clientCapabilities: Record<string, unknown>;
    clientInfo: unknown;
    ttlMs: number;
  },
): Promise<void> {
  await sql.unsafe(
    `WITH purged AS (
       DELETE FROM mcp_sessions WHERE id_sha256 IN (
         SELECT id_sha256 FROM mcp_sessions WHERE expires_at <= now() ORDER BY expires_at LIMIT ${PURGE_PER_INSERT}
       )
     )
     INSERT INTO mcp_sessions (id_sha256, tenant_id, key_id, protocol_version, client_capabilities, client_info, expires_at)
     VALUES ($1, $2, $3, $4, $5::text::jsonb, $6::text::jsonb, now() + $7::float8 * interval '1 millisecond')`,
    [
      params.idSha256,
      params.tenantId,
      params.keyId,
      params.protocolVersion,
      jsonParam(params.clientCapabilities),
      jsonParam(params.clientInfo ?? null),
      params.ttlMs,
    ],
  );
}

/**
 * The live session with this ID hash (primary key) of this credential, and its idle expiry slid
 * forward — in the same statement, but written at most once per `slideEveryMs` (only when less than
 * `ttlMs - slideEveryMs` is left), so a busy session costs a read per request, not a write.
 * Unknown, expired and another credential's sessions are all undefined (and a foreign credential
 * never extends anyone's session).
 */
export async function touchMcpSession(
  sql: SqlHandle,
  params: { idSha256: string; tenantId: string; keyId: string; ttlMs: number; slideEveryMs: number },
): Promise<McpSessionRow | undefined> {
  const rows = await sql.unsafe<McpSessionRow[]>(
    `WITH live AS (
       SELECT tenant_id, key_id, protocol_version, client_capabilities, expires_at
         FROM mcp_sessions WHERE id_sha256 = $1 AND tenant_id = $2::uuid AND key_id = $3 AND expires_at > now()
     ), slid AS (
       UPDATE mcp_sessions SET expires_at = now() + $4::float8 * interval '1 millisecond'
        WHERE id_sha256 IN (SELECT $1::text FROM live)
          AND expires_at < now() + ($4::float8 - $5::float8) * interval '1 millisecond'
     )
     SELECT * FROM live`,
    [params.idSha256, params.tenantId, params.keyId, params.ttlMs, params.slideEveryMs],
    PREPARED,
  );
  return rows[0];
}

/** Ends a session of this credential; false when there is none (unknown, expired, another credential's). */
export async function deleteMcpSession(
  sql: SqlHandle,
  params: { idSha256: string; tenantId: string; keyId: string },
): Promise<boolean> {
  const rows = await sql.unsafe(
    "DELETE FROM mcp_sessions WHERE id_sha256 = $1 AND tenant_id = $2::uuid AND key_id = $3 AND expires_at > now() RETURNING 1",
    [params.idSha256, params.tenantId, params.keyId],
  );
  return rows.length > 0;
}

/**
 * A standalone GET stream takes its session's one delivery slot (`standalone_stream_id`, which
 * retires any earlier stream of the session) and slides the idle expiry like a request does. The
 * same credential rule as touchMcpSession: unknown, expired and foreign sessions are undefined.
 */
export async function openMcpSessionStream(
  sql: SqlHandle,
  params: { idSha256: string; tenantId: string; keyId: string; streamId: string; ttlMs: number },
): Promise<McpSessionRow | undefined> {
  const rows = await sql.unsafe<McpSessionRow[]>(
    `UPDATE mcp_sessions SET standalone_stream_id = $4, expires_at = GREATEST(expires_at, now() + $5::float8 * interval '1 millisecond')
      WHERE id_sha256 = $1 AND tenant_id = $2::uuid AND key_id = $3 AND expires_at > now()
      RETURNING tenant_id, key_id, protocol_version, client_capabilities, expires_at`,
    [params.idSha256, params.tenantId, params.keyId, params.streamId, params.ttlMs],
  );
  return rows[0];
}

/**
 * Records that a task was created in this session (a no-op for a run already recorded, e.g. an
 * idempotent retry from another session, or a session ended meanwhile).
 */
export async function linkMcpSessionTask(sql: SqlHandle, params: { idSha256: string; runId: string }): Promise<void> {
  await sql.unsafe(
    `INSERT INTO mcp_session_tasks (run_id, session_id_sha256)
     SELECT $2::uuid, id_sha256 FROM mcp_sessions WHERE id_sha256 = $1
     ON CONFLICT (run_id) DO NOTHING`,
    [params.idSha256, params.runId],
  );
}

/** Open tasks a standalone stream watches, at most this many (the newest are dropped beyond it). */
const SESSION_TASKS_PER_READ = 100;

/**
 * One round of a standalone stream: whether it still holds its session's slot (the session is live,
 * of this credential, and no newer GET replaced it), and the tasks created in the session by this
 * credential that are not in one of `terminalStatuses` (passed in: db/ defines no run states). The
 * caller reads each through the task binding (lib/tasks), which stays the one rule.
 */
export async function readMcpSessionStream(
  sql: SqlHandle,
  params: { idSha256: string; tenantId: string; keyId: string; streamId: string; terminalStatuses: readonly string[] },
): Promise<{ current: boolean; runIds: string[] }> {
  const rows = await sql.unsafe<{ current: boolean; run_ids: string[] }[]>(
    `SELECT s.standalone_stream_id IS NOT DISTINCT FROM $4 AS current,
            ARRAY(SELECT t.run_id::text FROM mcp_session_tasks t JOIN runs r ON r.id = t.run_id
                   WHERE t.session_id_sha256 = s.id_sha256 AND r.tenant_id = s.tenant_id AND r.created_by_key_id = s.key_id
                     AND r.status <> ALL($5::text[])
                   ORDER BY t.created_at LIMIT ${SESSION_TASKS_PER_READ}) AS run_ids
       FROM mcp_sessions s WHERE s.id_sha256 = $1 AND s.tenant_id = $2::uuid AND s.key_id = $3 AND s.expires_at > now()`,
    [params.idSha256, params.tenantId, params.keyId, params.streamId, [...params.terminalStatuses]],
    PREPARED,
  );
  const row = rows[0];
  return row ? { current: row.current, runIds: row.run_ids } : { current: false, runIds: [] };
}

/**
 * Claims input requests of one run for one stream (mcp_input_deliveries): the keys it may send now.
 * A key is won when nobody holds it, its holder's lease lapsed (a crashed instance), or this stream
 * already holds it. With `standalone`, nothing is claimed unless the stream still holds its
 * session's slot, so a retired GET stream can never send. Concurrent claims of one key serialise
 * on its primary key: exactly one stream wins.
 */
export async function claimInputDeliveries(
  sql: SqlHandle,
  params: { runId: string; keys: string[]; sessionIdSha256: string; streamId: string; leaseMs: number; standalone: boolean },
): Promise<string[]> {
  if (params.keys.length === 0) return [];
  const rows = await sql.unsafe<{ input_key: string }[]>(
    `INSERT INTO mcp_input_deliveries (run_id, input_key, session_id_sha256, stream_id, lease_until)
     SELECT $1::uuid, k, $2, $3, now() + $4::float8 * interval '1 millisecond' FROM unnest($5::text[]) AS k
      WHERE NOT $6::boolean OR EXISTS (SELECT 1 FROM mcp_sessions s WHERE s.id_sha256 = $2 AND s.standalone_stream_id = $3)
     ON CONFLICT (run_id, input_key) DO UPDATE
        SET session_id_sha256 = EXCLUDED.session_id_sha256, stream_id = EXCLUDED.stream_id,
            lease_until = EXCLUDED.lease_until, delivered_at = now()
      WHERE mcp_input_deliveries.lease_until <= now() OR mcp_input_deliveries.stream_id = EXCLUDED.stream_id
     RETURNING input_key`,
    [params.runId, params.sessionIdSha256, params.streamId, params.leaseMs, params.keys, params.standalone],
  );
  return rows.map((row) => row.input_key);
}

/** Extends every claim of a live stream. */
export async function renewInputDeliveries(sql: SqlHandle, params: { streamId: string; leaseMs: number }): Promise<void> {
  await sql.unsafe(
    "UPDATE mcp_input_deliveries SET lease_until = now() + $2::float8 * interval '1 millisecond' WHERE stream_id = $1",
    [params.streamId, params.leaseMs],
  );
}

/**
 * Drops a stream's claims: all of them when it ends (so a re-opened stream may send the questions
 * again at once), or only `keys` of `runId` once they are no longer open. Returns what was dropped
 * with who answered each (run_inputs.answered_by; null if unanswered, e.g. the run was cancelled).
 */
export async function releaseInputDeliveries(
  sql: SqlHandle,
  params: { streamId: string; runId?: string; keys?: string[] },
): Promise<{ runId: string; key: string; answeredBy: string | null }[]> {
  const rows = await sql.unsafe<{ run_id: string; input_key: string; answered_by: string | null }[]>(
    `DELETE FROM mcp_input_deliveries d
      WHERE d.stream_id = $1 AND ($2::uuid IS NULL OR d.run_id = $2::uuid) AND ($3::text[] IS NULL OR d.input_key = ANY($3::text[]))
      RETURNING d.run_id, d.input_key,
                (SELECT i.answered_by FROM run_inputs i WHERE i.run_id = d.run_id AND i.key = d.input_key) AS answered_by`,
    [params.streamId, params.runId ?? null, params.keys ?? null],
  );
  return rows.map((row) => ({ runId: row.run_id, key: row.input_key, answeredBy: row.answered_by }));
}
