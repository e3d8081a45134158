import { createHash } from "node:crypto";
import { createRun, describeDefinition, publishDefinitions } from "@runifold/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addOperatorTenant, createOperator } from "../../db/queries/operators";
import { createTenant } from "../../db/queries/tenants";
import { createOperatorToken, revokeOperatorToken } from "../../lib/admin";
import { shippedWorkflows } from "../../workflows/demo";
import { lastJson, runCli } from "../cli/run-cli";
import { freshDatabase } from "../helpers/db";
import type { LoopbackServer } from "../helpers/serve-requests";
import { startAdminServer } from "./admin-server";

// The CLI's HTTP mode against the admin API over real HTTP (docs/cli.md "HTTP mode", docs/api.md
// "Admin API"): operator API tokens minted as the console does, the CLI as a real process whose
// DATABASE_URL points nowhere, so every answer came over HTTP.

let db: Awaited<ReturnType<typeof freshDatabase>>;
let server: LoopbackServer;
let acme: { id: string };
let other: { id: string };
let op: { id: string; email: string };
let full: string;
let readOnly: string;
let otherTask: string;
const NO_DATABASE = "postgres://nobody@127.0.0.1:1/nothing";

function http(token: string): Record<string, string> {
  return { RUNIFOLD_URL: `${server.origin}/api/mcp`, RUNIFOLD_TOKEN: token, DATABASE_URL: NO_DATABASE };
}

async function api(
  path: string,
  token: string,
  init: RequestInit = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${server.origin}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  db = await freshDatabase();
  server = await startAdminServer(db.sql);
  await publishDefinitions(db.sql, shippedWorkflows.all().map(describeDefinition), "test-worker");
  acme = await createTenant(db.sql, { slug: "acme", name: "Acme" });
  other = await createTenant(db.sql, { slug: "other", name: "Other" });
  const row = await createOperator(db.sql, { email: "op@acme.test", passwordHash: "x", role: "operator" });
  op = { id: row.id, email: row.email };
  await addOperatorTenant(db.sql, { operatorId: op.id, tenantId: acme.id });
  const ctx = { sql: db.sql, actor: { kind: "operator" as const, id: op.id, email: op.email } };
  full = (await createOperatorToken(ctx, { name: "laptop", scopes: ["admin:read", "admin:write", "approvals:decide"] })).token;
  readOnly = (await createOperatorToken(ctx, { name: "reader", scopes: ["admin:read"], expiresInDays: 30 })).token;
  otherTask = (await createRun(db.sql, { tenantId: other.id, workflowName: "generate-report", workflowVersion: 1, input: {} }))
    .id;
}, 120_000);
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

describe("operator API tokens and the CLI's HTTP mode", { timeout: 300_000 }, () => {
  it("stores only the token's SHA-256; the creation is audited without the secret", async () => {
    const secret = /^rfo_([0-9a-f]{16})_(.+)$/.exec(full);
    expect(secret).not.toBeNull();
    const rows = await db.sql`SELECT * FROM operator_api_tokens WHERE id = ${secret?.[1] as string}`;
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(secret?.[2]);
    expect(rows[0]?.secret_sha256).toBe(
      createHash("sha256")
        .update(secret?.[2] as string)
        .digest("hex"),
    );
    const audits = await db.sql`SELECT actor, fields FROM audit_events WHERE action = 'operator_token.create'`;
    expect(audits).toHaveLength(2);
    expect(audits[0]?.actor).toBe(`operator:${op.id}`);
    expect(JSON.stringify(audits)).not.toContain(secret?.[2]);
  });

  it("runs definitions list, routes add, keys create and tasks list over HTTP as the token's operator", async () => {
    const definitions = await runCli(["definitions", "list", "--json"], http(full));
    expect(definitions.code, definitions.stderr).toBe(0);
    expect(lastJson(definitions).map((d: { key: string }) => d.key)).toContain("generate-report@1");

    const added = await runCli(
      ["routes", "add", "--tenant", "acme", "--tool", "report", "--workflow", "generate-report", "--version", "1", "--json"],
      http(full),
    );
    expect(added.code, added.stderr).toBe(0);
    expect(lastJson(added)).toMatchObject({ tool_name: "report", workflow_name: "generate-report", revision: 1 });
    const listed = await runCli(["routes", "list", "--json"], http(full));
    expect(lastJson(listed)).toMatchObject([{ tenant_slug: "acme", tool_name: "report" }]);

    const key = await runCli(["keys", "create", "--tenant", "acme", "--name", "from-laptop", "--scopes", "mcp"], http(full));
    expect(key.code, key.stderr).toBe(0);
    expect(key.lines.at(-1)).toMatch(/^rf_[0-9a-f]{16}_/);
    const [keyRow] = await db.sql`SELECT tenant_id, created_by_operator_id FROM api_keys WHERE name = 'from-laptop'`;
    expect(keyRow).toEqual({ tenant_id: acme.id, created_by_operator_id: op.id });
    const [created] = await db.sql`SELECT actor, fields FROM audit_events WHERE action = 'key.create'`;
    expect(created?.actor).toBe(`operator:${op.id}`);
    expect(created?.fields.viaToken).toBe(/^rfo_([0-9a-f]{16})_/.exec(full)?.[1]);

    const acmeTask = (
      await createRun(db.sql, { tenantId: acme.id, workflowName: "generate-report", workflowVersion: 1, input: {} })
    ).id;
    const tasks = await runCli(["tasks", "list", "--json"], http(full));
    expect(tasks.code, tasks.stderr).toBe(0);
    // Only the operator's tenant: the other tenant's task is not listed.
    expect(lastJson(tasks).tasks.map((t: { taskId: string }) => t.taskId)).toEqual([acmeTask]);
    const got = await runCli(["tasks", "get", acmeTask, "--json"], http(full));
    expect(got.code, got.stderr).toBe(0);
    expect(lastJson(got)).toMatchObject({ taskId: acmeTask, tenant: "acme", status: "queued" });
    const history = await runCli(["tasks", "history", acmeTask, "--json"], http(full));
    expect(history.code, history.stderr).toBe(0);
    expect(lastJson(history).workflow).toMatchObject({ name: "generate-report", version: 1 });
    const cancelled = await runCli(["tasks", "cancel", acmeTask, "--json"], http(full));
    expect(lastJson(cancelled)).toEqual({ taskId: acmeTask, outcome: "cancelled" });
    const rerun = await runCli(["tasks", "rerun", acmeTask, "--json"], http(full));
    expect(rerun.code, rerun.stderr).toBe(0);
    const { rerunId } = lastJson(rerun);
    expect((await db.sql`SELECT tenant_id FROM runs WHERE id = ${rerunId}`)[0]?.tenant_id).toBe(acme.id);
  });

  it("answers another tenant's task, tenant and route exactly as unknown ones", async () => {
    const unknownId = "00000000-0000-4000-8000-000000000000";
    for (const suffix of ["", "/history"]) {
      const foreign = await api(`/api/v1/admin/tasks/${otherTask}${suffix}`, full);
      const unknown = await api(`/api/v1/admin/tasks/${unknownId}${suffix}`, full);
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual({ ...unknown.body, message: unknown.body.message?.toString().replace(unknownId, otherTask) });
    }
    const cancel = await api(`/api/v1/admin/tasks/${otherTask}/cancel`, full, { method: "POST" });
    expect(cancel.status).toBe(404);
    expect((await api(`/api/v1/admin/tasks/${otherTask}/rerun`, full, { method: "POST" })).status).toBe(404);
    expect((await db.sql`SELECT status FROM runs WHERE id = ${otherTask}`)[0]?.status).toBe("queued");
    const foreignTenant = await runCli(["keys", "list", "--tenant", "other"], http(full));
    const noTenant = await runCli(["keys", "list", "--tenant", "nope"], http(full));
    expect(foreignTenant.code).toBe(4);
    expect(foreignTenant.stderr.replace("other", "X")).toBe(noTenant.stderr.replace("nope", "X"));
    const cliGet = await runCli(["tasks", "get", otherTask], http(full));
    expect(cliGet.code).toBe(4);
    expect(cliGet.stderr).toContain(`No task ${otherTask}`);
  });

  it("refuses a token without the scope (403), and revoked, expired, unknown or a disabled operator's (401)", async () => {
    const refused = await runCli(["keys", "create", "--tenant", "acme"], http(readOnly));
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('requires the "admin:write" scope (HTTP 403)');
    expect((await api("/api/v1/admin/tenants", readOnly)).status).toBe(200);
    expect((await api("/api/v1/approvals", readOnly)).status).toBe(403);
    expect((await api("/api/v1/approvals", full)).body).toEqual({ approvals: [] });

    const ctx = { sql: db.sql, actor: { kind: "operator" as const, id: op.id, email: op.email } };
    const doomed = await createOperatorToken(ctx, { name: "doomed", scopes: ["admin:read"] });
    expect((await api("/api/v1/admin/tenants", doomed.token)).status).toBe(200);
    await revokeOperatorToken(ctx, { tokenId: doomed.tokenId });
    const revoked = await runCli(["tenants", "list"], http(doomed.token));
    expect(revoked.code).toBe(4);
    expect(revoked.stderr).toContain("HTTP 401");
    expect((await db.sql`SELECT count(*)::int AS n FROM audit_events WHERE action = 'operator_token.revoke'`)[0]?.n).toBe(1);

    const expiring = await createOperatorToken(ctx, { name: "expiring", scopes: ["admin:read"], expiresInDays: 1 });
    await db.sql`UPDATE operator_api_tokens SET expires_at = now() - interval '1 second' WHERE id = ${expiring.tokenId}`;
    expect((await api("/api/v1/admin/tenants", expiring.token)).status).toBe(401);
    const wrongSecret = `${full.slice(0, -4)}AAAA`;
    expect((await api("/api/v1/admin/tenants", wrongSecret)).status).toBe(401);
    expect((await api("/api/v1/admin/tenants", "rf_0000000000000000_nope")).status).toBe(401);

    await db.sql`UPDATE operators SET disabled_at = now() WHERE id = ${op.id}`;
    try {
      expect((await api("/api/v1/admin/tenants", full)).status).toBe(401);
    } finally {
      await db.sql`UPDATE operators SET disabled_at = NULL WHERE id = ${op.id}`;
    }
  });

  it("answers bad input with 400 and pages lists with a keyset cursor", async () => {
    const badJson = await api("/api/v1/admin/tenants/acme/routes", full, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{",
    });
    expect(badJson).toMatchObject({ status: 400, body: { error: "bad_request" } });
    const badRoute = await api("/api/v1/admin/tenants/acme/routes", full, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ toolName: "bad name!", workflowName: "generate-report", workflowVersion: 1 }),
    });
    expect(badRoute.status).toBe(400);
    expect(badRoute.body.message).toContain("toolName");
    expect((await api("/api/v1/admin/tasks?limit=0", full)).status).toBe(400);
    expect((await api("/api/v1/admin/tasks?cursor=zzz", full)).status).toBe(400);
    expect((await api("/api/v1/admin/nothing-here", full)).status).toBe(404);

    // An admin sees every tenant: two pages of one, then none left.
    const admin = await createOperator(db.sql, { email: "root@acme.test", passwordHash: "x", role: "admin" });
    const adminToken = (
      await createOperatorToken(
        { sql: db.sql, actor: { kind: "operator", id: admin.id, email: admin.email } },
        { name: "root", scopes: ["admin:read"] },
      )
    ).token;
    const first = await api("/api/v1/admin/tenants?limit=1", adminToken);
    expect((first.body.tenants as { slug: string }[]).map((t) => t.slug)).toEqual(["acme"]);
    const second = await api(`/api/v1/admin/tenants?limit=1&cursor=${first.body.nextCursor}`, adminToken);
    expect((second.body.tenants as { slug: string }[]).map((t) => t.slug)).toEqual(["other"]);
    expect(second.body.nextCursor).toBeNull();
    // Every task once, newest first, one per page, until nextCursor is null.
    const all = (await db.sql`SELECT id FROM runs ORDER BY created_at DESC, id DESC`).map((row) => row.id);
    expect(all.length).toBeGreaterThan(2);
    const seen: string[] = [];
    let cursor: unknown = "";
    while (cursor !== null) {
      const tasks = await api(`/api/v1/admin/tasks?limit=1${cursor ? `&cursor=${cursor}` : ""}`, adminToken);
      seen.push(...(tasks.body.tasks as { taskId: string }[]).map((task) => task.taskId));
      cursor = tasks.body.nextCursor;
    }
    expect(seen).toEqual(all);
  });
});
