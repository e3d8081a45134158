import { coerceError } from "@runifold/sdk";
import type { AdminActor } from "../../admin";
import type { OperatorTokenScope } from "../../auth";
import { isAppError } from "../../errors";
import { authenticateOperatorBearer } from "../bearer-auth";
import { apiError, unavailable } from "../responses";
import { type AdminApiDeps, type AdminCall, UnsupportedMediaType } from "./context";
import { listDefinitionsApi } from "./definitions";
import { createKeyApi, listKeysApi, revokeKeyApi } from "./keys";
import { addRouteApi, listRoutesApi } from "./routes";
import { cancelTaskApi, getTaskApi, listTasksApi, rerunTaskApi, taskHistoryApi } from "./tasks";
import { listTenantsApi } from "./tenants";

type Endpoint = {
  method: "GET" | "POST" | "DELETE";
  /** Path segments after /api/v1/admin/; `*` matches one segment, handed to `handle` in order. */
  path: string[];
  scope: OperatorTokenScope;
  handle: (call: AdminCall, params: string[]) => Promise<Response>;
};

/** The admin API (docs/api.md "Admin API"): every endpoint, its method and the scope it needs. */
const ENDPOINTS: Endpoint[] = [
  { method: "GET", path: ["tenants"], scope: "admin:read", handle: listTenantsApi },
  { method: "GET", path: ["tenants", "*", "routes"], scope: "admin:read", handle: listRoutesApi },
  { method: "POST", path: ["tenants", "*", "routes"], scope: "admin:write", handle: addRouteApi },
  { method: "GET", path: ["tenants", "*", "keys"], scope: "admin:read", handle: listKeysApi },
  { method: "POST", path: ["tenants", "*", "keys"], scope: "admin:write", handle: createKeyApi },
  { method: "DELETE", path: ["tenants", "*", "keys", "*"], scope: "admin:write", handle: revokeKeyApi },
  { method: "GET", path: ["definitions"], scope: "admin:read", handle: listDefinitionsApi },
  { method: "GET", path: ["tasks"], scope: "admin:read", handle: listTasksApi },
  { method: "GET", path: ["tasks", "*"], scope: "admin:read", handle: getTaskApi },
  { method: "POST", path: ["tasks", "*", "cancel"], scope: "admin:write", handle: cancelTaskApi },
  { method: "POST", path: ["tasks", "*", "rerun"], scope: "admin:write", handle: rerunTaskApi },
  { method: "GET", path: ["tasks", "*", "history"], scope: "admin:read", handle: taskHistoryApi },
];

function paramsOf(pattern: string[], segments: string[]): string[] | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: string[] = [];
  for (const [i, part] of pattern.entries()) {
    if (part === "*") params.push(segments[i] as string);
    else if (part !== segments[i]) return undefined;
  }
  return params;
}

const STATUS_OF_CODE = { bad_request: 400, unauthenticated: 401, forbidden: 403, not_found: 404, conflict: 409 } as const;

/**
 * /api/v1/admin/{...segments}: authenticates the operator API token first (401 for anything else,
 * whatever the path), then finds the endpoint (404 unknown path, 405 wrong method), checks its scope
 * (403) and runs it as the token's operator: lib/admin's rules, audit and the operator's tenant scope.
 */
export function createAdminApiHandler(deps: AdminApiDeps): (request: Request, segments: string[]) => Promise<Response> {
  return async function handleAdmin(request, segments) {
    try {
      const sql = deps.sql();
      const matches = ENDPOINTS.map((endpoint) => ({ endpoint, params: paramsOf(endpoint.path, segments) })).filter(
        (match) => match.params !== undefined,
      );
      const match = matches.find(({ endpoint }) => endpoint.method === request.method);
      // Authenticate before telling paths apart: an unauthenticated caller learns nothing about the API's shape.
      const principal = await authenticateOperatorBearer(request, sql, {
        logger: deps.logger,
        scope: match?.endpoint.scope ?? "admin:read",
      });
      if (principal instanceof Response) return principal;
      if (!match) {
        if (matches.length === 0) return apiError(404, "not_found", "No such admin API endpoint");
        return apiError(405, "method_not_allowed", `Use ${matches.map((m) => m.endpoint.method).join(" or ")}`, {
          headers: { allow: matches.map((m) => m.endpoint.method).join(", ") },
        });
      }
      const actor: AdminActor = {
        kind: "operator",
        id: principal.operatorId,
        email: principal.email,
        tokenId: principal.tokenId,
      };
      const call: AdminCall = { sql, actor, principal, request, url: new URL(request.url) };
      return await match.endpoint.handle(call, match.params as string[]);
    } catch (error) {
      if (error instanceof UnsupportedMediaType) return apiError(415, "unsupported_media_type", error.message);
      if (isAppError(error)) return apiError(STATUS_OF_CODE[error.code], error.code, error.message);
      deps.logger.error("admin api request failed", { error: coerceError(error).message });
      return unavailable();
    }
  };
}
