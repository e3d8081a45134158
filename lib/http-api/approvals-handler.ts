import { type ApprovalChannel, type DecideResult, decideApproval, listApprovals, readApprovalJwks } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import { operatorOfPrincipal } from "../approvals";
import type { Principal } from "../auth";
import { authenticateBearer, missingScope } from "./bearer-auth";
import { readCappedBody } from "./read-capped-body";
import { apiError, jsonResponse, unavailable } from "./responses";
import type { HttpApiDeps } from "./signal-handler";

/** A decision body is small: the decision, a comment of at most 2,000 characters, a few fields. */
const DECISION_MAX_BYTES = 64 * 1024;

export type DecisionRouteParams = { taskId: string; key: string };

/** 401/403 as every /api/v1 route, then the person behind the credential (403 when there is none). */
async function authenticatePerson(
  request: Request,
  sql: SqlHandle,
  deps: HttpApiDeps,
  scope: "tasks:read" | "tasks:write",
): Promise<{ principal: Principal; operatorId: string } | Response> {
  const principal = await authenticateBearer(request, sql, { logger: deps.logger, verify: deps.verifyBearer });
  if (principal instanceof Response) return principal;
  const refused = missingScope(principal, scope);
  if (refused) return refused;
  const operatorId = await operatorOfPrincipal(sql, principal);
  if (!operatorId)
    return apiError(
      403,
      "no_person",
      "Approvals are decided by people: use an operator's OAuth token or an API key an operator minted",
    );
  return { principal, operatorId };
}

/** GET /api/v1/approvals[?all=true]: the open approvals of the credential's tenant this person may decide (all: every open one). */
export function createApprovalsListHandler(deps: HttpApiDeps): (request: Request) => Promise<Response> {
  return async function handleList(request) {
    try {
      const sql = deps.sql();
      const who = await authenticatePerson(request, sql, deps, "tasks:read");
      if (who instanceof Response) return who;
      const all = new URL(request.url).searchParams.get("all") === "true";
      const approvals = await listApprovals(sql, { operatorId: who.operatorId, tenantId: who.principal.tenantId }, { all });
      return jsonResponse({ approvals }, 200);
    } catch (error) {
      deps.logger.error("approvals list failed", { error: (error as Error).message });
      return unavailable();
    }
  };
}

/**
 * POST /api/v1/approvals/{taskId}/{key}/decisions `{ decision: "approve"|"reject", comment?, fields? }`:
 * 401, 403 (scope `tasks:write`; no person), 413, 415, 400, then decideApproval: 404 (unknown or
 * another tenant's task or key), 403 (not eligible: recorded in the audit, nothing else), 409 (no
 * longer open, expired, already decided), 201 with the decisions so far and the outcome if settled.
 * `X-Runifold-Channel: cli` marks the CLI's decisions; anything else is `http`.
 */
export function createApprovalDecisionHandler(
  deps: HttpApiDeps,
): (request: Request, params: DecisionRouteParams) => Promise<Response> {
  return async function handleDecision(request, params) {
    try {
      const sql = deps.sql();
      const who = await authenticatePerson(request, sql, deps, "tasks:write");
      if (who instanceof Response) return who;
      const body = await readCappedBody(request, DECISION_MAX_BYTES);
      if (body.kind === "too_large")
        return apiError(413, "payload_too_large", `Decisions are limited to ${DECISION_MAX_BYTES} bytes`);
      if (body.kind === "unreadable") return apiError(400, "invalid_payload", "The request body could not be read");
      if (request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase() !== "application/json")
        return apiError(415, "unsupported_media_type", "A decision must be sent as Content-Type: application/json");
      const parsed = parseDecision(body.bytes);
      if (!parsed)
        return apiError(400, "invalid_payload", 'The body must be { "decision": "approve" | "reject", "comment"?, "fields"? }');
      const channel: ApprovalChannel = request.headers.get("x-runifold-channel") === "cli" ? "cli" : "http";
      const result = await decideApproval(
        sql,
        { operatorId: who.operatorId, tenantId: who.principal.tenantId },
        params.taskId,
        params.key,
        parsed,
        channel,
      );
      return answer(result, params);
    } catch (error) {
      deps.logger.error("approval decision failed", { error: (error as Error).message });
      return unavailable();
    }
  };
}

/** GET /.well-known/runifold/approvals-jwks.json: the public keys of receipts, for anyone to verify with. */
export function createApprovalsJwksHandler(deps: Pick<HttpApiDeps, "sql" | "logger">): () => Promise<Response> {
  return async function handleJwks() {
    try {
      return jsonResponse(await readApprovalJwks(deps.sql()), 200, { "cache-control": "public, max-age=300" });
    } catch (error) {
      deps.logger.error("approvals jwks failed", { error: (error as Error).message });
      return unavailable();
    }
  };
}

function parseDecision(
  bytes: Uint8Array,
): { decision: "approve" | "reject"; comment?: string; fields?: Record<string, unknown> } | undefined {
  try {
    const value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) as Record<string, unknown>;
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    if (value.decision !== "approve" && value.decision !== "reject") return undefined;
    if (value.comment !== undefined && value.comment !== null && typeof value.comment !== "string") return undefined;
    const fields = value.fields;
    if (fields !== undefined && fields !== null && (typeof fields !== "object" || Array.isArray(fields))) return undefined;
    return {
      decision: value.decision,
      ...(typeof value.comment === "string" ? { comment: value.comment } : {}),
      ...(fields ? { fields: fields as Record<string, unknown> } : {}),
    };
  } catch {
    return undefined;
  }
}

function answer(result: DecideResult, params: DecisionRouteParams): Response {
  switch (result.kind) {
    case "not_found":
      // One answer for unknown, foreign and malformed IDs and keys: nothing tells them apart.
      return apiError(404, "not_found", "Approval not found");
    case "refused": {
      const status =
        result.code === "invalid_decision" ? 400 : ["not_open", "expired", "already_decided"].includes(result.code) ? 409 : 403;
      return apiError(status, result.code, result.message);
    }
    case "recorded":
      return jsonResponse({ taskId: params.taskId, key: params.key, outcome: result.outcome, decisions: result.decisions }, 201);
  }
}
