import type { SqlHandle } from "../client";
import { jsonParam, PREPARED } from "../sql";

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
