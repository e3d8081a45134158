import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { silentLogger } from "@runifold/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant } from "../../db/queries/tenants";
import { createApiKey } from "../../lib/auth";
import { bearerVerifier, createApprovalDecisionHandler, createApprovalsJwksHandler } from "../../lib/http-api";
import { lastJson, runCli } from "../cli/run-cli";
import { freshDatabase } from "../helpers/db";
import { MemoryOAuthProvider } from "../helpers/memory-oauth-provider";
import { consentTo, createMember, type OAuthTestServer, startOAuthTestServer } from "../helpers/oauth-server";
import { type LoopbackServer, serveRequests } from "../helpers/serve-requests";
import { waitFor } from "../helpers/wait-for";
import { outsideEnv, packWorkspaces, run, stopGroup } from "./projects";

// Issue 30's first acceptance item with the SDK as a team gets it: packed once, installed from the
// tarball into a temporary project outside this repository whose own workflow file asks for a
// 2-of-3 approval from group finance (separation of duties on by default, 1-hour expiry), served by
// that project's installed `runifold-worker`. The tool is bound with the CLI to the definition the
// worker publishes. Operator A gets an OAuth token through the official SDK client's own flow
// (discovery, registration, PKCE, code exchange over HTTP; consent by calling what the consent page
// calls) and calls the tool over MCP; A is refused as the requester; B and C approve over HTTP; the
// receipt verifies with the published JWKS in the team's project, and not after one byte changes.

const TOOL = "pay_supplier";
const REDIRECT = "http://127.0.0.1:33419/callback";
const WORKFLOW = `import { defineWorkflow } from "@runifold/sdk";
import { z } from "zod";

export const supplierPayment = defineWorkflow({
  name: "supplier-payment",
  version: 1,
  input: z.object({ supplier: z.string(), amount: z.number().positive() }),
  async run(ctx, input) {
    const { outcome, decisions } = await ctx.requestApproval("pay", {
      message: \`Pay \${input.amount} EUR to \${input.supplier}?\`,
      details: { supplier: input.supplier, amount: input.amount },
      policy: { approvers: { groups: ["finance"] }, quorum: 2, expiresIn: "1h" },
    });
    return { content: [{ type: "text", text: outcome }], structuredContent: { outcome, decisions } };
  },
});

export default [supplierPayment];
`;
// The team's own check of a receipt file against a JWKS URL, with the packed SDK's verifyReceipt.
const VERIFY = `import { readFileSync } from "node:fs";
import { verifyReceipt } from "@runifold/sdk";
const jwks = await (await fetch(process.argv[3])).json();
const verified = await verifyReceipt(readFileSync(process.argv[2], "utf8"), jwks);
process.stdout.write(JSON.stringify(verified));
`;

let scratch: string;
let project: string;
let db: Awaited<ReturnType<typeof freshDatabase>>;
let oauth: OAuthTestServer;
let api: LoopbackServer;
let worker: ChildProcess | undefined;
let workerOutput = "";
let tenantId: string;
const people: Record<"a" | "b" | "c", { id: string; key: string }> = {} as never;

beforeAll(async () => {
  process.env.NEXTAUTH_SECRET ??= "approvals-team-secret-0123456789";
  scratch = mkdtempSync(path.join(os.tmpdir(), "runifold-approvals-team-"));
  db = await freshDatabase();
  const tarballs = await packWorkspaces(path.join(scratch, "tarballs"));
  project = path.join(scratch, "team");
  mkdirSync(project);
  writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "team", private: true, type: "module" }));
  await run("npm", ["install", tarballs.sdk, "zod@4.6.7"], { cwd: project, timeoutMs: 180_000 });
  writeFileSync(path.join(project, "workflows.mjs"), WORKFLOW);
  writeFileSync(path.join(project, "verify.mjs"), VERIFY);

  tenantId = (await createTenant(db.sql, { slug: "team", name: "Team" })).id;
  for (const name of ["a", "b", "c"] as const) {
    const id = await createMember(db.sql, `${name}@team.test`, [tenantId]);
    const key = await createApiKey(db.sql, { tenantId, name, createdBy: `operator:${id}`, createdByOperatorId: id });
    people[name] = { id, key: key.token };
  }
  // Groups as an admin sets them for password operators (operator.groups.set).
  for (const name of ["a", "b", "c"]) {
    const set = await runCli(["operators", "groups", "set", `${name}@team.test`, "finance"], { DATABASE_URL: db.url });
    expect(set.code, set.stderr).toBe(0);
  }

  worker = spawn(path.join(project, "node_modules/.bin/runifold-worker"), ["--workflows", "workflows.mjs"], {
    cwd: project,
    env: outsideEnv({
      DATABASE_URL: db.url,
      NEXTAUTH_SECRET: process.env.NEXTAUTH_SECRET,
      RUNIFOLD_LOG_LEVEL: "warn",
      RUNIFOLD_POLL_MS: "200",
    }),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  worker.stdout?.on("data", (chunk) => {
    workerOutput += chunk;
  });
  worker.stderr?.on("data", (chunk) => {
    workerOutput += chunk;
  });

  oauth = await startOAuthTestServer(db.sql, { worker: false });
  // The approvals endpoints the app binds (app/api/v1/approvals/**, the JWKS document), on real HTTP.
  const deps = { sql: () => db.sql, logger: silentLogger, verifyBearer: bearerVerifier({ resource: oauth.config.resource }) };
  const decide = createApprovalDecisionHandler(deps);
  const jwks = createApprovalsJwksHandler(deps);
  api = await serveRequests(async (request) => {
    const route = new URL(request.url).pathname;
    if (route === "/.well-known/runifold/approvals-jwks.json") return jwks();
    const match = /^\/api\/v1\/approvals\/([^/]+)\/([^/]+)\/decisions$/.exec(route);
    if (match && request.method === "POST")
      return decide(request, { taskId: decodeURIComponent(match[1] as string), key: decodeURIComponent(match[2] as string) });
    return new Response("not found", { status: 404 });
  });
}, 420_000);

afterAll(async () => {
  await stopGroup(worker);
  await api?.close();
  await oauth?.close();
  await db?.drop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** The official SDK client's OAuth flow for A; the consent step does what the consent page does. */
async function connectAsA(): Promise<Client> {
  const provider = new MemoryOAuthProvider({ redirectUrl: REDIRECT, clientName: "Team agent" });
  const probe = new Client({ name: "team-agent", version: "1" });
  await expect(
    probe.connect(new StreamableHTTPClientTransport(new URL(oauth.mcpUrl), { authProvider: provider })),
  ).rejects.toThrow(/Unauthorized/);
  const authorizationUrl = provider.authorizationUrls.at(-1) as URL;
  expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
  const redirect = await consentTo(db.sql, oauth.config, authorizationUrl.searchParams, { operatorId: people.a.id, tenantId });
  const transport = new StreamableHTTPClientTransport(new URL(oauth.mcpUrl), { authProvider: provider });
  await transport.finishAuth(redirect.searchParams.get("code") as string);
  expect(provider.tokens()?.access_token).toMatch(/./);
  const client = new Client({ name: "team-agent", version: "1" });
  await client.connect(transport);
  return client;
}

const decide = (token: string, taskId: string, comment: string) =>
  fetch(`${api.origin}/api/v1/approvals/${taskId}/pay/decisions`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ decision: "approve", comment }),
  });

describe("a team's packed workflow asks finance for 2 of 3", { timeout: 180_000 }, () => {
  it("refuses A (the OAuth caller) as the requester, continues on B's and C's approvals, and signs a verifiable receipt", async () => {
    await waitFor(
      async () => {
        if (worker?.exitCode !== null) throw new Error(`runifold-worker exited (${worker?.exitCode}):\n${workerOutput}`);
        const listed = await runCli(["definitions", "list", "--json"], { DATABASE_URL: db.url });
        // biome-ignore lint/suspicious/noExplicitAny: the CLI's JSON output
        return (lastJson(listed) as any[]).find((d) => d.name === "supplier-payment" && d.version === 1);
      },
      (found) => found?.servedBy > 0,
      { describe: "the packed worker to publish supplier-payment@1", timeoutMs: 60_000, everyMs: 500 },
    );
    const bound = await runCli(
      [
        "routes",
        "add",
        "--tenant",
        "team",
        "--tool",
        TOOL,
        "--workflow",
        "supplier-payment",
        "--version",
        "1",
        "--sync-deadline-ms",
        "300",
      ],
      { DATABASE_URL: db.url },
    );
    expect(bound.code, bound.stderr).toBe(0);

    const client = await connectAsA();
    try {
      const first = await client.callTool({ name: TOOL, arguments: { supplier: "Acme Paper", amount: 4200 } });
      const taskId = (first.structuredContent as { taskId: string }).taskId;
      expect(taskId).toMatch(/^[0-9a-f-]{36}$/);
      await waitFor(
        () => db.sql`SELECT wait_detail FROM runs WHERE id = ${taskId} AND status = 'waiting_signal'`,
        (rows) => rows[0]?.wait_detail?.approval?.key === "pay",
        { describe: "the run to wait for its approval", timeoutMs: 30_000 },
      );
      // A, in finance, started the run through their grant: separation of duties keeps them out.
      const status = await client.callTool({ name: "runifold_task_status", arguments: { taskId } });
      expect(status.structuredContent).toMatchObject({
        status: "working",
        statusMessage: expect.stringContaining("0 of 2 from group finance"),
      });
      const refused = await client.callTool({
        name: "runifold_task_answer",
        arguments: { taskId, key: "pay", response: { action: "accept", content: { decision: "approve" } } },
      });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain("Separation of duties");
      expect(await db.sql`SELECT 1 FROM approval_decisions WHERE run_id = ${taskId}`).toHaveLength(0);
      expect(
        await db.sql`SELECT operator_id, fields->>'reason' AS reason FROM audit_events
          WHERE action = 'approval.refused' AND fields->>'taskId' = ${taskId}`,
      ).toEqual([{ operator_id: people.a.id, reason: "separation_of_duties" }]);

      const byB = await decide(people.b.key, taskId, "budget ok");
      expect(byB.status).toBe(201);
      expect(await byB.json()).toMatchObject({ outcome: null });
      const byC = await decide(people.c.key, taskId, "ok");
      expect(byC.status).toBe(201);
      expect(await byC.json()).toMatchObject({ outcome: "approved" });

      const done = (await client.callTool({ name: "runifold_task_wait", arguments: { taskId } }, undefined, {
        timeout: 60_000,
      })) as { isError?: boolean; structuredContent?: unknown; _meta?: Record<string, unknown> };
      expect(done.isError).toBeFalsy();
      expect(done.structuredContent).toMatchObject({
        outcome: "approved",
        decisions: [
          { email: "b@team.test", decision: "approve", channel: "http", comment: "budget ok" },
          { email: "c@team.test", decision: "approve", channel: "http", comment: "ok" },
        ],
      });
      const receipts = done._meta?.["io.runifold/approvals"] as string[] | undefined;
      expect(receipts).toHaveLength(1);
      const receipt = receipts?.[0] as string;

      const jwksUrl = `${api.origin}/.well-known/runifold/approvals-jwks.json`;
      const verify = async (jws: string) => {
        const file = path.join(project, "receipt.jws");
        writeFileSync(file, jws);
        return JSON.parse((await run(process.execPath, ["verify.mjs", file, jwksUrl], { cwd: project })).stdout);
      };
      const verified = await verify(receipt);
      expect(verified).toMatchObject({
        valid: true,
        payload: { sub: taskId, tenant: "team", workflow: "supplier-payment", version: 1, key: "pay", outcome: "approved" },
      });
      expect(verified.payload.decisions.map((d: { operatorId: string }) => d.operatorId)).toEqual([people.b.id, people.c.id]);
      // One byte of the signed part changed: the signature no longer holds.
      const at = receipt.indexOf(".") + 5;
      const tampered = receipt.slice(0, at) + (receipt[at] === "A" ? "B" : "A") + receipt.slice(at + 1);
      expect(tampered).not.toBe(receipt);
      expect((await verify(tampered)).valid).toBe(false);
    } finally {
      await client.close();
    }
  });
});
