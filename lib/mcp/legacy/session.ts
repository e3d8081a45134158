import { createHash, randomBytes } from "node:crypto";
import type { InputRequest } from "@runifold/sdk";
import { insertMcpSession, touchMcpSession } from "../../../db/queries/mcp-sessions";
import type { Principal } from "../../auth";
import { canAsk, elicitationModes } from "../input-capabilities";
import { isRecord, jsonResponse, RPC, rpcError } from "../json-rpc";
import type { McpCall, McpDeps } from "../mcp-deps";
import { askMode } from "../url-input";
import type { LegacySession } from "./session-record";

/**
 * Legacy sessions (2025-11-25 basic/transports.mdx "Session Management"). The server mints an
 * `Mcp-Session-Id` with every InitializeResult and stores, in Postgres, what the client declared, so
 * whichever instance serves a later request knows which server-initiated requests the client may
 * receive (elicitation, and in which modes). Sessions are optional for clients: a request without the
 * header is served statelessly, exactly as before — it just never receives a server-initiated request.
 *
 * A presented ID must be live and belong to the presenting credential (tenant + key id, the task
 * binding): unknown, expired and another credential's IDs all answer HTTP 404 ("the server MUST
 * respond to requests containing that session ID with HTTP 404 Not Found"; the client then
 * initializes again). Expiry is sliding: a day after the last request (the expiry is moved at most
 * once an hour, so a busy session is read, not written, on each request). Expired rows are purged
 * when new sessions are inserted (db/queries/mcp-sessions.ts).
 *
 * Modern (2026-07-28) requests have no sessions: their header is ignored (handle-mcp-request.ts only
 * resolves sessions on the legacy leg), and their capabilities travel in each request's `_meta`.
 */
export const SESSION_HEADER = "mcp-session-id";
export const SESSION_IDLE_TTL_MS = 24 * 60 * 60_000;
export const SLIDE_EVERY_MS = 60 * 60_000;
/** Longer than any ID we mint (43 characters); anything else cannot be ours. */
const MAX_SESSION_ID_CHARS = 200;

/** Only the digest is stored, so a copy of the table does not yield live session IDs. */
export function sessionDigest(id: string): string {
  return createHash("sha256").update(id).digest("hex");
}

/**
 * A new session for this credential. 32 random bytes as base64url: "globally unique and
 * cryptographically secure", and only visible ASCII (0x21–0x7E) as the transport requires.
 */
export async function mintSession(
  deps: McpDeps,
  principal: Principal,
  init: { protocolVersion: string; params: Record<string, unknown> },
): Promise<string> {
  const id = randomBytes(32).toString("base64url");
  await insertMcpSession(deps.sql, {
    idSha256: sessionDigest(id),
    tenantId: principal.tenantId,
    keyId: principal.keyId,
    protocolVersion: init.protocolVersion,
    clientCapabilities: isRecord(init.params.capabilities) ? init.params.capabilities : {},
    clientInfo: isRecord(init.params.clientInfo) ? init.params.clientInfo : null,
    ttlMs: SESSION_IDLE_TTL_MS,
  });
  return id;
}

/**
 * The call with its session attached, the call unchanged when no session ID was sent (stateless),
 * or the 404 answer. `initialize` never carries one (a client re-initializing after a 404 sends none;
 * should one be sent anyway, initialize mints a fresh session rather than refusing).
 */
export async function attachSession(deps: McpDeps, call: McpCall, body: unknown): Promise<McpCall | Response> {
  const raw = call.request.headers.get(SESSION_HEADER);
  if (raw === null) return call;
  if (isRecord(body) && body.method === "initialize") return call;
  const id = raw.trim();
  if (!wellFormedSessionId(id)) return sessionNotFound();
  const idSha256 = sessionDigest(id);
  const touch = () =>
    touchMcpSession(deps.sql, {
      idSha256,
      tenantId: call.principal.tenantId,
      keyId: call.principal.keyId,
      ttlMs: SESSION_IDLE_TTL_MS,
      slideEveryMs: SLIDE_EVERY_MS,
    });
  // Read with the key by the gate already (read-ahead.ts): slid only when due, by the same statement as otherwise.
  const ahead = call.prefetchedSession?.sessionSha256 === idSha256 ? call.prefetchedSession.session : null;
  if (ahead === undefined) return sessionNotFound();
  if (ahead) {
    if (ahead.needsSlide) await touch();
    return {
      ...call,
      session: { idSha256, protocolVersion: ahead.protocolVersion, clientCapabilities: ahead.clientCapabilities },
    };
  }
  const row = await touch();
  if (!row) return sessionNotFound();
  return { ...call, session: { idSha256, protocolVersion: row.protocol_version, clientCapabilities: row.client_capabilities } };
}

/** Visible ASCII only, and no longer than any ID we mint could be: anything else cannot be ours. */
export function wellFormedSessionId(id: string): boolean {
  return id.length > 0 && id.length <= MAX_SESSION_ID_CHARS && /^[\x21-\x7e]+$/.test(id);
}

/** Elicitation arrived in 2025-06-18: an older session cannot be sent it, whatever it declared. */
const FIRST_ELICITATION_VERSION = "2025-06-18";

/**
 * Whether a server-initiated request for this input request may be sent to this client. Without a
 * session nothing is known, so nothing is sent (2025-11-25 client/elicitation.mdx: servers MUST NOT
 * send modes the client does not support; the question stays pending for tasks/result of a client
 * that declared it, tasks/update, or the operator's form).
 */
export function sessionCanAsk(session: LegacySession | undefined, request: InputRequest): boolean {
  if (!session || session.protocolVersion < FIRST_ELICITATION_VERSION) return false;
  return canAsk(session.clientCapabilities, request);
}

/** URL-mode elicitation arrived in 2025-11-25 (client/elicitation.mdx "URL Mode Elicitation Requests"). */
const FIRST_URL_MODE_VERSION = "2025-11-25";

/**
 * How this input request may be sent to this session: as it is (sessionCanAsk), in URL mode
 * pointing at its console page (url-input.ts: the session declared only URL mode, in a version that
 * has it, and the server knows its public URL), or not at all.
 */
export function sessionAskMode(
  session: LegacySession | undefined,
  request: InputRequest,
  publicUrl: string | undefined,
): "as-is" | "url" | undefined {
  if (sessionCanAsk(session, request)) return "as-is";
  if (!session || session.protocolVersion < FIRST_URL_MODE_VERSION) return undefined;
  return askMode(session.clientCapabilities, request, publicUrl) === "url" ? "url" : undefined;
}

/** The session declared elicitation in some mode, in a version that has it. */
export function sessionMayElicit(session: LegacySession | undefined): boolean {
  if (!session || session.protocolVersion < FIRST_ELICITATION_VERSION) return false;
  const modes = elicitationModes(session.clientCapabilities);
  return modes.form || modes.url;
}

/** One answer for unknown, expired and foreign sessions, so none reveals that an ID exists. */
export function sessionNotFound(): Response {
  return jsonResponse(rpcError(null, RPC.invalidRequest, "Session not found: initialize a new session"), 404);
}
