import type { Logger } from "@runifold/sdk";
import type postgres from "postgres";
import { isSignalName, SIGNAL_PAYLOAD_MAX_BYTES, type SignalTaskResult, signalTaskByHandle } from "../tasks";
import { authenticateBearer, missingScope, type VerifyBearer } from "./bearer-auth";
import { readCappedBody } from "./read-capped-body";
import { apiError, jsonResponse, unavailable } from "./responses";

/** Everything the HTTP API needs from its process, passed in (as for createMcpHandler). */
export type HttpApiDeps = {
  /** The pool, resolved per request (the web process creates it lazily on first use). */
  sql: () => postgres.Sql;
  logger: Logger;
  /** How a Bearer credential becomes a principal; default: API keys (lib/auth verifyApiKey). */
  verifyBearer?: VerifyBearer;
};

export type SignalRouteParams = { id: string; name: string };

/**
 * POST /api/v1/tasks/{id}/signals/{name}: body = the payload as JSON (empty → null). In order:
 * 401 (credential), 403 (`tasks:write`), 400 (name), 413 (over SIGNAL_PAYLOAD_MAX_BYTES while
 * reading), 415 (a body not declared application/json), 400 (not JSON), then the task by handle: 404 (unknown, foreign, malformed, expired),
 * 409 (terminal), 202 (stored; the workflow gets it at its next waitForSignal of that name).
 * `params` are the decoded path segments.
 */
export function createSignalHandler(deps: HttpApiDeps): (request: Request, params: SignalRouteParams) => Promise<Response> {
  return async function handleSignal(request, params) {
    try {
      const sql = deps.sql();
      const principal = await authenticateBearer(request, sql, { logger: deps.logger, verify: deps.verifyBearer });
      if (principal instanceof Response) return principal;
      const refused = missingScope(principal, "tasks:write");
      if (refused) return refused;
      if (!isSignalName(params.name)) return invalidName();
      const body = await readCappedBody(request, SIGNAL_PAYLOAD_MAX_BYTES);
      if (body.kind === "too_large") return tooLarge();
      if (body.kind === "unreadable") return apiError(400, "invalid_payload", "The request body could not be read");
      // ASVS 13.2.5: a body is JSON only when it says so (a form or text/plain is what a cross-site
      // page can send without a preflight); an empty body carries no payload and needs no type.
      if (body.bytes.length > 0 && !declaresJson(request.headers))
        return apiError(415, "unsupported_media_type", "A payload must be sent as Content-Type: application/json");
      const payload = parsePayload(body.bytes);
      if (!payload.ok) return apiError(400, "invalid_payload", "The body must be empty or one JSON value (UTF-8)");
      const result = await signalTaskByHandle(sql, {
        tenantId: principal.tenantId,
        taskId: params.id,
        name: params.name,
        payload: payload.value,
        actor: principal.actor,
        lookup: { method: "POST /api/v1/tasks/{id}/signals/{name}", actor: principal.actor },
      });
      if (result.outcome === "sent") {
        deps.logger.debug("signal sent", { tenantId: principal.tenantId, taskId: params.id, signal: params.name });
        return jsonResponse({ taskId: params.id, signal: params.name, accepted: true }, 202);
      }
      return refusal(result);
    } catch (error) {
      deps.logger.error("signal request failed", { error: (error as Error).message });
      return unavailable();
    }
  };
}

function refusal(result: Exclude<SignalTaskResult, { outcome: "sent" }>): Response {
  switch (result.outcome) {
    case "not_found":
      // One answer for unknown, foreign, malformed and expired IDs: nothing tells them apart.
      return apiError(404, "not_found", "Task not found");
    case "terminal":
      return apiError(409, "task_terminal", `Task is ${result.status}: a finished task takes no signals`, {
        fields: { status: result.status },
      });
    case "invalid_name":
      return invalidName();
    case "invalid_payload":
      return apiError(400, "invalid_payload", `Invalid payload: ${result.reason}`);
    case "payload_too_large":
      return tooLarge();
  }
}

/** `application/json`, with parameters (`; charset=utf-8`) or not, case-insensitively. */
function declaresJson(headers: Headers): boolean {
  return headers.get("content-type")?.split(";")[0]?.trim().toLowerCase() === "application/json";
}

function parsePayload(bytes: Uint8Array): { ok: true; value: unknown } | { ok: false } {
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return { ok: true, value: text.trim() === "" ? null : (JSON.parse(text) as unknown) };
  } catch {
    return { ok: false };
  }
}

function invalidName(): Response {
  return apiError(400, "invalid_signal_name", "Signal names are 1–128 characters: letters, digits and _ . : -");
}

function tooLarge(): Response {
  return apiError(413, "payload_too_large", `Signal payloads are limited to ${SIGNAL_PAYLOAD_MAX_BYTES} bytes`);
}
