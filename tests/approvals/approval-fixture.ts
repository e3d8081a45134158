import { type ApprovalPolicy, createRegistry, createRun, createWorker, silentLogger, type Worker } from "@runifold/sdk";
import { insertToken } from "../../db/queries/oauth-tokens";
import { insertRouteRevision } from "../../db/queries/routes";
import { createTenant } from "../../db/queries/tenants";
import { ACCESS_TOKEN_PREFIX, createApiKey, mintOpaqueToken, tokenDigest } from "../../lib/auth";
import {
  bearerVerifier,
  createApprovalDecisionHandler,
  createApprovalsJwksHandler,
  createApprovalsListHandler,
} from "../../lib/http-api";
import { freshDatabase } from "../helpers/db";
import { createMember } from "../helpers/oauth-server";
import { type LoopbackServer, serveRequests } from "../helpers/serve-requests";
import { waitFor } from "../helpers/wait-for";
import { approvalFlow } from "./approval-workflow";

export const RESOURCE = "http://approvals.test/api/mcp";

export type ApprovalFixture = Awaited<ReturnType<typeof startApprovalFixture>>;

/**
 * A fresh store with tenant `acme` and its people — A (finance, the requester through an OAuth
 * token), B and C (finance), D (no group), E (group cto) — each with a credential; tenant `other`
 * with its own finance operator; a worker serving approval-flow; and a real HTTP server around the
 * handlers app/api/v1/approvals/** and /.well-known/runifold/approvals-jwks.json bind.
 */
export async function startApprovalFixture(options: { worker?: boolean } = {}) {
  process.env.NEXTAUTH_SECRET ??= "approvals-test-secret-0123456789";
  const db = await freshDatabase();
  const { sql } = db;
  const acme = await createTenant(sql, { slug: "acme", name: "Acme" });
  const other = await createTenant(sql, { slug: "other", name: "Other" });
  const person = async (email: string, groups: string[], tenantId = acme.id) => {
    const id = await createMember(sql, email, [tenantId]);
    await sql`UPDATE operators SET groups = ${groups} WHERE id = ${id}`;
    const key = await createApiKey(sql, { tenantId, name: email, createdBy: `operator:${id}`, createdByOperatorId: id });
    return { id, email, token: key.token };
  };
  const b = await person("b@acme.test", ["finance"]);
  const c = await person("c@acme.test", ["finance"]);
  const d = await person("d@acme.test", []);
  const e = await person("e@acme.test", ["cto"]);
  const outsider = await person("f@other.test", ["finance"], other.id);
  // A decides through an OAuth access token of their own grant, which also started the run.
  const aId = await createMember(sql, "a@acme.test", [acme.id]);
  await sql`UPDATE operators SET groups = ${["finance"]} WHERE id = ${aId}`;
  await sql`INSERT INTO oauth_clients (id, kind, client_name, redirect_uris) VALUES ('client-a', 'dcr', 'Agent', ${["http://127.0.0.1/cb"]})`;
  const [grant] = await sql<{ id: string }[]>`
    INSERT INTO oauth_grants (client_id, operator_id, tenant_id, scopes, resource, actor)
    VALUES ('client-a', ${aId}, ${acme.id}, ${["mcp", "tasks:read", "tasks:write"]}, ${RESOURCE}, ${`operator:${aId}`}) RETURNING id`;
  const aToken = mintOpaqueToken(ACCESS_TOKEN_PREFIX);
  await insertToken(sql, {
    tokenSha256: tokenDigest(aToken),
    grantId: grant?.id as string,
    kind: "access",
    scopes: ["mcp", "tasks:read", "tasks:write"],
    ttlS: 3600,
  });
  const a = { id: aId, email: "a@acme.test", token: aToken, grantId: grant?.id as string };

  const deps = { sql: () => sql, logger: silentLogger, verifyBearer: bearerVerifier({ resource: RESOURCE }) };
  const list = createApprovalsListHandler(deps);
  const decide = createApprovalDecisionHandler(deps);
  const jwks = createApprovalsJwksHandler(deps);
  const server: LoopbackServer = await serveRequests(async (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/api/v1/approvals" && request.method === "GET") return list(request);
    if (path === "/.well-known/runifold/approvals-jwks.json") return jwks();
    const match = /^\/api\/v1\/approvals\/([^/]+)\/([^/]+)\/decisions$/.exec(path);
    if (match && request.method === "POST")
      return decide(request, { taskId: decodeURIComponent(match[1] as string), key: decodeURIComponent(match[2] as string) });
    return new Response("not found", { status: 404 });
  });
  // Without the in-process worker, a test runs its own worker processes (approvals-crash.test.ts).
  const worker: Worker | undefined =
    options.worker === false
      ? undefined
      : createWorker({ sql, registry: createRegistry([approvalFlow]), logger: silentLogger, pollMs: 50 });
  await worker?.start();

  return {
    sql,
    url: db.url,
    origin: server.origin,
    tenantId: acme.id,
    otherTenantId: other.id,
    a,
    b,
    c,
    d,
    e,
    outsider,
    /** A run of approval-flow started by A's OAuth grant (so separation of duties keeps A out). */
    async start(policy: ApprovalPolicy, amount = 1200): Promise<string> {
      const created = await createRun(sql, {
        tenantId: acme.id,
        workflowName: approvalFlow.name,
        workflowVersion: approvalFlow.version,
        input: { policy, amount },
        definition: approvalFlow,
        createdByKeyId: `oauth:${a.grantId}`,
      });
      return created.id;
    },
    /** Resolves once the run is parked on its approval (status waiting_signal). */
    parked(taskId: string, timeoutMs?: number) {
      return waitFor(
        () => sql`SELECT 1 FROM runs WHERE id = ${taskId} AND status = 'waiting_signal'`,
        (rows) => rows.length === 1,
        { describe: "the run to wait for its approval", ...(timeoutMs ? { timeoutMs } : {}) },
      );
    },
    /** Binds approval-flow to an MCP tool of tenant acme, with the given sync deadline. */
    bindTool(toolName: string, syncDeadlineMs: number) {
      return insertRouteRevision(sql, {
        tenantId: acme.id,
        toolName,
        workflowName: approvalFlow.name,
        workflowVersion: approvalFlow.version,
        inputSchema: { type: "object" },
        taskSupport: "optional",
        syncDeadlineMs,
      });
    },
    decide(token: string, taskId: string, decision: "approve" | "reject", comment?: string) {
      return fetch(`${server.origin}/api/v1/approvals/${taskId}/pay/decisions`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ decision, ...(comment ? { comment } : {}) }),
      });
    },
    async close() {
      await worker?.stop(500);
      await server.close();
      await db.drop();
    },
  };
}
