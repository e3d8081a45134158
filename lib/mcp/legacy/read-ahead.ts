import { type CappedBody, parseJsonBody } from "../../http-api";
import type { LegacyReadAhead } from "../auth-gate";
import { isModernMessage } from "../era";
import { isRecord } from "../json-rpc";
import { SESSION_HEADER, SESSION_IDLE_TTL_MS, SLIDE_EVERY_MS, sessionDigest, wellFormedSessionId } from "./session";

/**
 * What the gate may read together with a legacy request's API key (auth-gate.ts readLegacyAhead):
 * the session its Mcp-Session-Id names and the task of a tasks/get or the tool of a tools/call in its body. The legacy era has
 * no routing headers (2026-07-28 Streamable HTTP's Mcp-Method/Mcp-Name), so the body read already
 * says it; undefined for anything else (no session, initialize, a batch, a body not yet read or not
 * JSON), which then authenticates and attaches its session as usual. Only a hint: the handler
 * uses the reads only for the same session and task (the body is parsed once: parseJsonBody).
 */
export function legacyReadAhead(request: Request, body: CappedBody | undefined): LegacyReadAhead | undefined {
  if (body?.kind !== "ok" || request.headers.has("mcp-method")) return undefined;
  const raw = request.headers.get(SESSION_HEADER)?.trim();
  if (!raw || !wellFormedSessionId(raw)) return undefined;
  const parsed = parseJsonBody(body);
  if (!parsed.ok) return undefined;
  const message = parsed.value;
  if (!isRecord(message) || message.method === "initialize" || isModernMessage(message, request.headers)) return undefined;
  const params = isRecord(message.params) ? message.params : undefined;
  const taskId = message.method === "tasks/get" && typeof params?.taskId === "string" ? params.taskId : undefined;
  const toolName = message.method === "tools/call" && typeof params?.name === "string" ? params.name : undefined;
  return {
    sessionSha256: sessionDigest(raw),
    ...(taskId !== undefined ? { taskId } : {}),
    ...(toolName !== undefined ? { toolName } : {}),
    ttlMs: SESSION_IDLE_TTL_MS,
    slideEveryMs: SLIDE_EVERY_MS,
  };
}
