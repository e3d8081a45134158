import { type ApprovalChannel, type DecideResult, decideApproval, listApprovals, readApprovalJwks } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import { findScopedTenantBySlug, listTenants } from "../../db/queries/tenants";
import { operatorOfPrincipal } from "../approvals";
import { isOperatorToken, type OperatorPrincipal } from "../auth";
import { findTaskTenant } from "../tasks";
import { authenticateBearer, authenticateOperatorBearer, bearerToken, missingScope } from "./bearer-auth";
import { readCappedBody } from "./read-capped-body";
import { apiError, jsonResponse, unavailable } from "./responses";
import type { HttpApiDeps } from "./signal-handler";

/** A decision body is small: the decision, a comment of at most 2,000 characters, a few fields. */
const DECISION_MAX_BYTES = 64 * 1024;

export type DecisionRouteParams = { taskId: string; key: string };

/**
 * Who decides: a person behind a tenant credential (an operator's OAuth token, or an API key an
 * operator minted: that one tenant), or an operator API token (`rfo_…`, scope `approvals:decide`:
 * every tenant its operator may see, as the console's /approvals shows them).
 */
type Person = { operatorId: string; tenantId: string } | { operatorId: string; operatorToken: OperatorPrincipal };

/** 401/403 as every /api/v1 route, then the person behind the credential (403 when there is none). */
async function authenticatePerson(
  request: Request,
  sql: SqlHandle,
  deps: HttpApiDeps,
  scope: "tasks:read" | "tasks:write",
): Promise<Person | Response> {
  if (isOperatorToken(bearerToken(request))) {
    const operator = await authenticateOperatorBearer(request, sql, { logger: deps.logger, scope: "approvals:decide" });
    return operator instanceof Response ? operator : { operatorId: operator.operatorId, operatorToken: operator };
  }
  const principal = await authenticateBearer(request, sql, { logger: deps.logger, verify: deps.verifyBearer });
  if (principal instanceof Response) return principal;
  const refused = missingScope(principal, scope);
  if (refused) return refused;
  const operatorId = await operatorOfPrincipal(sql, principal);
  if (!operatorId)
    return apiError(
      403,
      "no_person",
      "Approvals are decided by people: use an operator's OAuth token, an API key an operator minted, or an operator API token",
    );
  return { operatorId, tenantId: principal.tenantId };
}

/**
 * The tenants an approvals request covers: the credential's one tenant; for an operator token the
 * `?tenant=<slug>` it names (one it may see, else none: "not found" and empty look alike) or every
 * tenant its operator may see.
 */
async function tenantsOf(sql: SqlHandle, person: Person, slug: string | null): Promise<{ id: string; slug?: string }[]> {
  if ("tenantId" in person) return [{ id: person.tenantId }];
  const scope = person.operatorToken.tenantIds;
  if (slug) {
    const tenant = await findScopedTenantBySlug(sql, { slug, scope });
    return tenant ? [{ id: tenant.id, slug: tenant.slug }] : [];
  }
  return (await listTenants(sql))
    .filter((tenant) => scope === null || scope.includes(tenant.id))
    .map((tenant) => ({ id: tenant.id, slug: tenant.slug }));
}

/**
 * GET /api/v1/approvals[?all=true][&tenant=<slug>]: the open approvals of the credential's tenant this
 * person may decide (all: every open one); with an operator token, of every tenant it sees (or the
 * one named), each with its `tenant` slug.
 */
export function createApprovalsListHandler(deps: HttpApiDeps): (request: Request) => Promise<Response> {
  return async function handleList(request) {
    try {
      const sql = deps.sql();
      const who = await authenticatePerson(request, sql, deps, "tasks:read");
      if (who instanceof Response) return who;
      const url = new URL(request.url);
      const all = url.searchParams.get("all") === "true";
      const approvals = [];
      for (const tenant of await tenantsOf(sql, who, url.searchParams.get("tenant"))) {
        const open = await listApprovals(sql, { operatorId: who.operatorId, tenantId: tenant.id }, { all });
        approvals.push(...(tenant.slug ? open.map((approval) => ({ ...approval, tenant: tenant.slug })) : open));
      }
      return jsonResponse({ approvals }, 200);
    } catch (error) {
      deps.logger.error("approvals list failed", { error: (error as Error).message });
      return unavailable();
    }
  };
}

/**
 * POST /api/v1/approvals/{taskId}/{key}/decisions `{ decision: "approve"|"reject", comment?, fields? }`:
 * 401, 403 (scope `tasks:write`, or `approvals:decide` for an operator token; no person), 413, 415, 400, then decideApproval: 404 (unknown or
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
      // An operator token decides in the task's own tenant, if its operator may see it; else "not found".
      const tenantId =
        "tenantId" in who
          ? who.tenantId
          : await findTaskTenant(sql, { taskId: params.taskId, scope: who.operatorToken.tenantIds });
      if (!tenantId) return apiError(404, "not_found", "Approval not found");
      const result = await decideApproval(
        sql,
        { operatorId: who.operatorId, tenantId },
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
