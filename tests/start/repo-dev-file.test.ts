import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readDevFile, writeDevFile } from "@runifold/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../../lib/auth";
import { publishRepoDevFile } from "../../scripts/lib/repo-dev-file";
import { freshDatabase } from "../helpers/db";
import { waitForExit } from "../helpers/processes";

/**
 * What `npm start` writes for the dev loop (scripts/lib/repo-dev-file.ts), against a real store:
 * the worker's URL, the seeded key with the tenant it authenticates as, the key carried over to a
 * later start only while it still verifies, and another live server's file left alone.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let token: string;
const roots: string[] = [];

beforeAll(async () => {
  db = await freshDatabase();
  const [tenant] = await db.sql`INSERT INTO tenants (slug, name) VALUES ('dev-acme', 'Dev Acme') RETURNING id`;
  token = (await createApiKey(db.sql, { tenantId: tenant?.id as string, name: "demo" })).token;
});
afterAll(async () => {
  await db.drop();
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function root() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "runifold-repo-dev-"));
  roots.push(dir);
  return dir;
}

const base = { workerUrl: "postgres://runifold_worker_x:pw@127.0.0.1:1/x", consoleUrl: "http://127.0.0.1:3000" };

describe("npm start's .runifold/dev.json", () => {
  it("names the worker's URL, the console, the MCP endpoint, and the seeded key with its tenant (0600)", async () => {
    const dir = root();
    const file = await publishRepoDevFile({ root: dir, ownerUrl: db.url, seededKey: token, ...base });
    expect(file).toBe(path.join(dir, ".runifold", "dev.json"));
    expect(statSync(file as string).mode & 0o777).toBe(0o600);
    expect(readDevFile(file as string)).toMatchObject({
      version: 1,
      databaseUrl: base.workerUrl,
      consoleUrl: base.consoleUrl,
      mcpUrl: `${base.consoleUrl}/api/mcp`,
      tenant: "dev-acme",
      apiKey: token,
      pid: process.pid,
    });
    expect(existsSync(path.join(dir, ".runifold", ".gitignore"))).toBe(true);
  });

  it("keeps the previous file's key on a later start while it verifies, and drops one that does not", async () => {
    const dir = root();
    await publishRepoDevFile({ root: dir, ownerUrl: db.url, seededKey: token, ...base });
    const later = await publishRepoDevFile({ root: dir, ownerUrl: db.url, ...base });
    expect(readDevFile(later as string)).toMatchObject({ tenant: "dev-acme", apiKey: token });

    const stale = `${token.slice(0, -4)}AAAA`; // the store was reset: the old key is no longer there
    const info = readDevFile(later as string);
    writeDevFile(dir, { ...info, apiKey: stale });
    const reset = readDevFile((await publishRepoDevFile({ root: dir, ownerUrl: db.url, ...base })) as string);
    expect(reset.apiKey).toBeUndefined();
    expect(reset.tenant).toBeUndefined();
  });

  it("leaves another running dev server's file alone, and replaces a dead one's", async () => {
    const dir = root();
    const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"]);
    try {
      const info = { databaseUrl: "postgres://other@127.0.0.1:2/o", consoleUrl: "http://127.0.0.1:4000" };
      writeDevFile(dir, { ...info, mcpUrl: `${info.consoleUrl}/api/mcp`, pid: other.pid as number, startedAt: "x" });
      const lines: string[] = [];
      expect(await publishRepoDevFile({ root: dir, ownerUrl: db.url, ...base, log: (l) => lines.push(l) })).toBeUndefined();
      expect(readDevFile(path.join(dir, ".runifold", "dev.json")).pid).toBe(other.pid);
      expect(lines.join("\n")).toContain(`belongs to another running dev server (pid ${other.pid})`);
    } finally {
      other.kill("SIGKILL");
      await waitForExit(other);
    }
    const file = await publishRepoDevFile({ root: dir, ownerUrl: db.url, ...base });
    expect(readDevFile(file as string).pid).toBe(process.pid);
  });
});
