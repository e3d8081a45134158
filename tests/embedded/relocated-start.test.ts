import { createHash } from "node:crypto";
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startEmbeddedPostgres } from "@runifold/store/embedded";
import postgres from "postgres";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

/**
 * Security review H2, end to end as root: a project the `postgres` user cannot traverse (under the
 * mode-700 /root) relocates into `<base>/runifold-<hash>`. The base is a temp dir, never the real
 * /var/tmp that running clusters use.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const asRoot = process.getuid?.() === 0 && statSync("/root", { throwIfNoEntry: false })?.mode !== undefined;

describe.skipIf(!asRoot)("relocated embedded PostgreSQL (as root)", () => {
  let project: string;
  let base: string;
  beforeEach(() => {
    project = mkdtempSync("/root/rf-h2-");
    symlinkSync(path.join(ROOT, "node_modules"), path.join(project, "node_modules"));
    base = mkdtempSync("/tmp/rf-h2-base-");
    chmodSync(base, 0o755);
  });
  afterEach(() => {
    rmSync(project, { recursive: true, force: true });
    rmSync(base, { recursive: true, force: true });
  });

  it("creates its own root, serves from it, and re-uses it on a restart", async () => {
    const first = await startEmbeddedPostgres({ projectRoot: project, relocationBase: base });
    try {
      expect(first.dataDir.startsWith(`${base}/runifold-`)).toBe(true);
      const root = path.dirname(first.dataDir);
      expect([lstatSync(root).uid, lstatSync(root).mode & 0o7777]).toEqual([0, 0o755]);
      const sql = postgres(first.url, { max: 1 });
      expect((await sql`SELECT 1 AS ok`)[0]?.ok).toBe(1);
      await sql.end();
    } finally {
      await first.stop();
    }
    const again = await startEmbeddedPostgres({ projectRoot: project, relocationBase: base });
    await again.stop();
    expect(again.dataDir).toBe(first.dataDir);
  });

  it("refuses to start in a root someone else planted, and changes nothing in it", async () => {
    // The name is predictable (it must survive restarts): sha256 of the project path.
    const root = path.join(base, `runifold-${createHash("sha256").update(project).digest("hex").slice(0, 12)}`);
    mkdirSync(root, { mode: 0o755 });
    chownSync(root, 65534, 65534);
    const victim = path.join(base, "victim");
    mkdirSync(victim, { mode: 0o755 });
    symlinkSync(victim, path.join(root, "pg"));
    await expect(startEmbeddedPostgres({ projectRoot: project, relocationBase: base })).rejects.toThrow(/owned by uid 65534/);
    expect([statSync(victim).uid, statSync(victim).mode & 0o777]).toEqual([0, 0o755]);
  });
});
