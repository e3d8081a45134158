import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOperator } from "../../db/queries/operators";
import { createTenant } from "../../db/queries/tenants";
import { createOperatorToken } from "../../lib/admin";
import { startAdminServer } from "../admin-api/admin-server";
import { freshDatabase } from "../helpers/db";
import { ROOT } from "../helpers/processes";
import type { LoopbackServer } from "../helpers/serve-requests";
import { outsideEnv, run, withPackLock } from "./projects";

// @runifold/cli as a team installs it (issue 34): the packed tarball installed into an empty project,
// its `runifold` bin administering a server over real HTTP with an operator API token — no database,
// no repository.
let db: Awaited<ReturnType<typeof freshDatabase>>;
let server: LoopbackServer;
let scratch: string;
let project: string;
let token: string;

beforeAll(async () => {
  db = await freshDatabase();
  server = await startAdminServer(db.sql);
  await createTenant(db.sql, { slug: "acme", name: "Acme" });
  const admin = await createOperator(db.sql, { email: "root@acme.test", passwordHash: "x", role: "admin" });
  token = (
    await createOperatorToken(
      { sql: db.sql, actor: { kind: "operator", id: admin.id, email: admin.email } },
      { name: "laptop", scopes: ["admin:read", "admin:write"] },
    )
  ).token;
  scratch = mkdtempSync(path.join(os.tmpdir(), "runifold-cli-package-"));
  const tarballs = path.join(scratch, "tarballs");
  mkdirSync(tarballs);
  await withPackLock(() =>
    run("npm", ["pack", "-w", "@runifold/cli", "--pack-destination", tarballs], {
      cwd: ROOT,
      env: { ...outsideEnv(), npm_config_loglevel: "warn" },
      timeoutMs: 180_000,
    }),
  );
  const tarball = path.join(tarballs, readdirSync(tarballs).find((name) => name.startsWith("runifold-cli-")) as string);
  project = path.join(scratch, "project");
  mkdirSync(project);
  writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "team", private: true, type: "module" }));
  // No dependencies: installing the tarball needs no registry.
  await run("npm", ["install", "--offline", tarball], { cwd: project, timeoutMs: 120_000 });
}, 300_000);
afterAll(async () => {
  await server?.close();
  await db?.drop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function runifold(args: string[], env: Record<string, string> = {}) {
  return run(path.join(project, "node_modules", ".bin", "runifold"), args, {
    cwd: project,
    env: outsideEnv({ RUNIFOLD_URL: `${server.origin}/api/mcp`, RUNIFOLD_TOKEN: token, ...env }),
    allowFailure: true,
  });
}

describe("@runifold/cli from its packed tarball", { timeout: 120_000 }, () => {
  it("installs with no dependencies and administers the server over HTTP with an operator token", async () => {
    expect(readdirSync(path.join(project, "node_modules", "@runifold"))).toEqual(["cli"]);
    const help = await runifold(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("routes add --tenant <slug>");

    const tenants = await runifold(["tenants", "list", "--json"]);
    expect(tenants.code, tenants.stderr).toBe(0);
    expect(JSON.parse(tenants.stdout).map((t: { slug: string }) => t.slug)).toEqual(["acme"]);
    const added = await runifold([
      "routes",
      "add",
      "--tenant",
      "acme",
      "--tool",
      "t1",
      "--workflow",
      "never-published",
      "--version",
      "1",
      "--allow-unpublished",
      "--json",
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ tool_name: "t1", revision: 1 });
    const key = await runifold(["keys", "create", "--tenant", "acme", "--scopes", "mcp"]);
    expect(key.code, key.stderr).toBe(0);
    expect(key.stdout.trim().split("\n").at(-1)).toMatch(/^rf_[0-9a-f]{16}_/);
    const tasks = await runifold(["tasks", "list", "--json"]);
    expect(JSON.parse(tasks.stdout)).toEqual({ tasks: [], nextCursor: null });

    const unknown = await runifold(["tasks", "get", "00000000-0000-4000-8000-000000000000"]);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain("No task");
    const refused = await runifold(["tenants", "list"], {
      RUNIFOLD_TOKEN: token.slice(0, -1) + (token.endsWith("A") ? "B" : "A"),
    });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain("HTTP 401");
    const noToken = await runifold(["tenants", "list"], { RUNIFOLD_TOKEN: "" });
    expect(noToken.code).toBe(4);
    expect(noToken.stderr).toContain("operator API token is needed");
  });
});
