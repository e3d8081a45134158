import { silentLogger } from "@runifold/sdk";
import type postgres from "postgres";
import {
  bearerVerifier,
  createAdminApiHandler,
  createApprovalDecisionHandler,
  createApprovalsListHandler,
} from "../../lib/http-api";
import { type LoopbackServer, serveRequests } from "../helpers/serve-requests";

const ADMIN = "/api/v1/admin/";
const DECISION = /^\/api\/v1\/approvals\/([^/]+)\/([^/]+)\/decisions$/;

/**
 * The admin API (app/api/v1/admin/[...path]/route.ts) and the approvals API on a loopback server,
 * around the same lib/http-api handlers the Next routes bind: the path after /api/v1/admin/ split
 * into decoded segments, as Next hands a catch-all route its `path`.
 */
export function startAdminServer(sql: postgres.Sql): Promise<LoopbackServer> {
  const deps = { sql: () => sql, logger: silentLogger };
  const admin = createAdminApiHandler(deps);
  const approvalDeps = { ...deps, verifyBearer: bearerVerifier() };
  const listApprovals = createApprovalsListHandler(approvalDeps);
  const decide = createApprovalDecisionHandler(approvalDeps);
  return serveRequests(
    (request) => {
      const { pathname } = new URL(request.url);
      if (pathname.startsWith(ADMIN)) return admin(request, pathname.slice(ADMIN.length).split("/").map(decodeURIComponent));
      if (pathname === "/api/v1/approvals" && request.method === "GET") return listApprovals(request);
      const decision = DECISION.exec(pathname);
      if (decision && request.method === "POST")
        return decide(request, {
          taskId: decodeURIComponent(decision[1] as string),
          key: decodeURIComponent(decision[2] as string),
        });
      return new Response(null, { status: 404 });
    },
    { body: "streamed" },
  );
}
