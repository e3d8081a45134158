import { spawn } from "node:child_process";
import path from "node:path";
import { McpAuthError, McpTaskClient } from "@runifold/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findOperatorByEmail } from "../../db/queries/operators";
import { verifyPassword } from "../../lib/auth";
import { freshDatabase } from "../helpers/db";
import { startMcpTestServer } from "../helpers/mcp-server";
import { ROOT } from "../helpers/processes";
import { lastJson, runCli } from "./run-cli";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let env: Record<string, string>;

beforeAll(async () => {
  db = await freshDatabase();
  server = await startMcpTestServer(db.sql, { worker: false });
  env = { DATABASE_URL: db.url };
});
afterAll(async () => {
  await server.close();
  await db.drop();
});

describe("runifold store commands (real processes, real Postgres)", { timeout: 120_000 }, () => {
  it("prints help for the CLI, a group and a verb; no command is a usage error", async () => {
    const [main, group, verb, none] = await Promise.all([
      runCli(["--help"], env),
      runCli(["keys", "--help"], env),
      runCli(["routes", "add", "--help"], env),
      runCli([], env),
    ]);
    expect(main.code).toBe(0);
    for (const word of [
      "tenants create",
      "keys create",
      "routes add",
      "operators create",
      "demo seed",
      "call <tool>",
      "tasks listen",
    ]) {
      expect(main.stdout).toContain(word);
    }
    expect(group).toMatchObject({ code: 0, stdout: expect.stringContaining("--expires-in-days N") });
    expect(verb).toMatchObject({ code: 0, stdout: expect.stringContaining("--task-support mode") });
    expect(none.code).toBe(4);
  });

  it("runs through the bin shim from another directory", async () => {
    const child = spawn(process.execPath, [path.join(ROOT, "scripts/runifold.mjs"), "tenants", "--help"], {
      cwd: "/",
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    expect(out).toContain("runifold tenants create <slug>");
  });

  it("demo seed: seeds once (printing the key last), then changes nothing", async () => {
    const first = await runCli(["demo", "seed"], env);
    expect(first.code).toBe(0);
    expect(first.lines.at(-1)).toMatch(/^rf_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    const again = await runCli(["demo", "seed", "--json"], env);
    expect(lastJson(again)).toEqual({ created: false });
    // The showcase alone by default (review F22); the conformance fixtures only when asked for.
    expect(lastJson(await runCli(["tenants", "list", "--json"], env)).map((t: { slug: string }) => t.slug)).toEqual([
      "tenant-acme",
    ]);
    const fixtures = await runCli(["demo", "seed", "--conformance", "--json"], env);
    expect(lastJson(fixtures)).toEqual({ created: true });
  });

  it("tenants create and list; duplicate and invalid slugs are errors", async () => {
    expect(await runCli(["tenants", "create", "t-cli", "--name", "CLI tenant"], env)).toMatchObject({
      code: 0,
      stdout: expect.stringContaining("t-cli"),
    });
    const [duplicate, invalid, list, plain] = await Promise.all([
      runCli(["tenants", "create", "t-cli"], env),
      runCli(["tenants", "create", "Bad_Slug"], env),
      runCli(["tenants", "list", "--json"], env),
      runCli(["tenants", "list"], env),
    ]);
    expect(duplicate).toMatchObject({ code: 4, stderr: 'error: Tenant "t-cli" already exists\n' });
    expect(invalid.code).toBe(4);
    expect(lastJson(list).map((t: { slug: string }) => t.slug)).toEqual(["conformance", "t-cli", "tenant-acme"]);
    expect(plain.lines[0]).toMatch(/^SLUG\s+NAME/);
  });

  it("keys create prints a token alone on the last line that authenticates; list and revoke", async () => {
    const created = await runCli(
      ["keys", "create", "--tenant", "t-cli", "--scopes", "mcp,tasks:read", "--name", "ci", "--expires-in-days", "7"],
      env,
    );
    expect(created.code).toBe(0);
    const token = created.lines.at(-1) as string;
    expect(token).toMatch(/^rf_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    const client = await McpTaskClient.connect(server.url, { key: token });
    expect(client.era).toBe("modern");

    const listed = lastJson(await runCli(["keys", "list", "--tenant", "t-cli", "--json"], env));
    const keyId = token.slice(3, 19);
    expect(listed).toEqual([expect.objectContaining({ id: keyId, name: "ci", scopes: ["mcp", "tasks:read"], revoked_at: null })]);
    expect(JSON.stringify(listed)).not.toContain("secret");

    const [badScope, noTenant, missing] = await Promise.all([
      runCli(["keys", "create", "--tenant", "t-cli", "--scopes", "mcp,admin"], env),
      runCli(["keys", "create", "--tenant", "nope"], env),
      runCli(["keys", "create"], env),
    ]);
    expect(badScope.code).toBe(4);
    expect(noTenant).toMatchObject({ code: 4, stderr: expect.stringContaining('No tenant "nope"') });
    expect(missing).toMatchObject({ code: 4, stderr: expect.stringContaining("--tenant is required") });

    expect(await runCli(["keys", "revoke", keyId], env)).toMatchObject({ code: 0, stdout: `Revoked key ${keyId}\n` });
    expect((await runCli(["keys", "revoke", keyId], env)).code).toBe(4);
    await expect(McpTaskClient.connect(server.url, { key: token })).rejects.toBeInstanceOf(McpAuthError);
  });

  it("routes add (new revisions), list and disable", async () => {
    const args = ["routes", "add", "--tenant", "t-cli", "--tool", "report", "--workflow", "generate-report", "--version", "1"];
    const first = lastJson(
      await runCli([...args, "--task-support", "required", "--title", "Report", "--sync-deadline-ms", "5000", "--json"], env),
    );
    expect(first).toMatchObject({
      tool_name: "report",
      revision: 1,
      task_support: "required",
      title: "Report",
      sync_deadline_ms: 5000,
    });
    expect(first.input_schema.properties).toHaveProperty("report_id");
    expect(lastJson(await runCli([...args, "--json"], env))).toMatchObject({ revision: 2, task_support: "optional" });

    const unknown = await runCli(
      [
        "routes",
        "add",
        "--tenant",
        "t-cli",
        "--tool",
        "ext",
        "--workflow",
        "not-shipped",
        "--version",
        "3",
        "--allow-unpublished",
        "--json",
      ],
      env,
    );
    expect(unknown.code).toBe(0);
    expect(unknown.stderr).toContain("no worker has published not-shipped@3");
    expect(lastJson(unknown).input_schema).toEqual({ type: "object" });

    const [current, all, badMode] = await Promise.all([
      runCli(["routes", "list", "--tenant", "t-cli", "--json"], env),
      runCli(["routes", "list", "--tenant", "t-cli", "--all-revisions", "--json"], env),
      runCli([...args, "--task-support", "sometimes"], env),
    ]);
    expect(lastJson(current).map((r: { tool_name: string; revision: number }) => `${r.tool_name}#${r.revision}`)).toEqual([
      "ext#1",
      "report#2",
    ]);
    expect(lastJson(all)).toHaveLength(3);
    expect(badMode.code).toBe(4);

    expect(await runCli(["routes", "disable", "--tenant", "t-cli", "--tool", "report"], env)).toMatchObject({
      code: 0,
      stdout: expect.stringContaining("revision 3, disabled"),
    });
    expect((await runCli(["routes", "disable", "--tenant", "t-cli", "--tool", "report"], env)).code).toBe(4);
    const plain = await runCli(["routes", "list", "--tenant", "t-cli"], env);
    expect(plain.stdout).toMatch(/report\s+3\s+generate-report@1\s+optional\s+disabled/);
  });

  it("operators create hashes the password and adds the membership; duplicates and weak input are refused", async () => {
    const created = lastJson(
      await runCli(
        [
          "operators",
          "create",
          "--email",
          "Ops@Example.com",
          "--password",
          "correct horse battery",
          "--role",
          "operator",
          "--tenant",
          "t-cli",
          "--json",
        ],
        env,
      ),
    );
    expect(created).toMatchObject({ email: "ops@example.com", role: "operator", tenants: ["t-cli"] });
    const row = await findOperatorByEmail(db.sql, "ops@example.com");
    expect(row?.password_hash).toMatch(/^scrypt\$16384\$8\$5\$/);
    expect(await verifyPassword("correct horse battery", row?.password_hash as string)).toBe(true);
    const members = await db.sql`SELECT count(*)::int AS n FROM operator_tenants WHERE operator_id = ${row?.id as string}`;
    expect(members[0]?.n).toBe(1);

    const [duplicate, short, role] = await Promise.all([
      runCli(
        ["operators", "create", "--email", "ops@example.com", "--password", "another long password", "--role", "admin"],
        env,
      ),
      runCli(["operators", "create", "--email", "x@example.com", "--password", "short", "--role", "admin"], env),
      runCli(["operators", "create", "--email", "y@example.com", "--password", "long enough password", "--role", "root"], env),
    ]);
    expect(duplicate).toMatchObject({ code: 4, stderr: expect.stringContaining("already exists") });
    expect(short.code).toBe(4);
    expect(role.code).toBe(4);
    expect(
      await runCli(
        ["operators", "create", "--email", "admin@example.com", "--password", "long enough password", "--role", "admin"],
        env,
      ),
    ).toMatchObject({ code: 0 });
  });

  it("reports a missing database in one line, without a stack trace", async () => {
    const run = await runCli(["tenants", "list"], {
      DATABASE_URL: "postgres://nobody:x@127.0.0.1:9/none",
      RUNIFOLD_DATA_DIR: "/nonexistent",
    });
    expect(run.code).toBe(4);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toMatch(/^error: database: /);
  });
});
