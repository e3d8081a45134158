import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnTs, waitForExit } from "../helpers/processes";
import { emptyDatabase } from "./support";

// The migrate job from source (`npm run db:migrate` = scripts/migrate.ts; the web image bundles the
// same file as migrate.mjs, run in standalone.test.ts): what RUNIFOLD_SEED it accepts, and two jobs
// started at once on an empty store (a retried Kubernetes Job, two CI pipelines).

let dataRoot: string;
beforeAll(() => {
  dataRoot = mkdtempSync(path.join(os.tmpdir(), "runifold-migrate-job-"));
});
afterAll(() => {
  rmSync(dataRoot, { recursive: true, force: true });
});

async function job(env: Record<string, string>) {
  const child = spawnTs("scripts/migrate.ts", { RUNIFOLD_DATA_DIR: dataRoot, RUNIFOLD_LOG_LEVEL: "warn", ...env });
  const code = await waitForExit(child, 60_000);
  return { code, output: child.output() };
}

describe("the migrate job", () => {
  it("refuses RUNIFOLD_SEED=demo before touching the store (the demo is npm start's)", async () => {
    const db = await emptyDatabase("job_demo");
    try {
      const { code, output } = await job({ DATABASE_URL: db.url, RUNIFOLD_SEED: "demo" });
      expect(code, output).toBe(2);
      expect(output).toContain("RUNIFOLD_SEED=demo is for `npm start`");
      const [table] = await db.sql`SELECT to_regclass('runifold_migrations') IS NOT NULL AS present`;
      expect(table?.present).toBe(false);
    } finally {
      await db.drop();
    }
  });

  it("with RUNIFOLD_SEED=off migrates and creates no operator", async () => {
    const db = await emptyDatabase("job_off");
    try {
      const { code, output } = await job({ DATABASE_URL: db.url, RUNIFOLD_SEED: "off" });
      expect(code, output).toBe(0);
      expect(output).toMatch(/^applied 0000_init$/m);
      expect(await db.sql`SELECT id FROM operators`).toEqual([]);
    } finally {
      await db.drop();
    }
  });

  it("creates the runtime logins with the passwords it is given, prints no password, and they work (F3/F4)", async () => {
    const db = await emptyDatabase("job_roles");
    const passwords = { web: "web-password-0123456789", worker: "worker-password-0123456789" };
    try {
      const run = () =>
        job({
          DATABASE_URL: db.url,
          RUNIFOLD_SEED: "off",
          RUNIFOLD_WEB_DB_PASSWORD: passwords.web,
          RUNIFOLD_WORKER_DB_PASSWORD: passwords.worker,
        });
      const first = await run();
      expect(first.code, first.output).toBe(0);
      const name = new URL(db.url).pathname.slice(1);
      expect(first.output).toContain(`runtime login runifold_web_${name} (in runifold_rt_${name}): password set`);
      expect(first.output).toContain(`runtime login runifold_worker_${name} (in runifold_wk_${name}): password set`);
      expect(first.output).not.toContain(passwords.web);
      expect((await run()).code).toBe(0); // again: the logins exist, their passwords are set again
      for (const kind of ["web", "worker"] as const) {
        const url = new URL(db.url);
        url.username = `runifold_${kind}_${name}`;
        url.password = passwords[kind];
        const sql = postgres(url.toString(), { max: 1, onnotice: () => {} });
        try {
          const [me] = await sql<{ rolsuper: boolean; rows: number }[]>`
            SELECT rolsuper, (SELECT count(*)::int FROM operators) AS rows FROM pg_roles WHERE rolname = current_user`;
          expect(me).toEqual({ rolsuper: false, rows: 0 });
          await expect(sql`CREATE TABLE probe (id int)`).rejects.toMatchObject({ code: "42501" });
        } finally {
          await sql.end({ timeout: 5 });
        }
      }
    } finally {
      await db.drop();
    }
  });

  it("run twice at once on an empty store: both succeed, one first admin, one credentials file", async () => {
    const db = await emptyDatabase("job_race");
    const before = new Set(readdirSync(dataRoot));
    try {
      const [a, b] = await Promise.all([job({ DATABASE_URL: db.url }), job({ DATABASE_URL: db.url })]);
      expect(a.code, a.output).toBe(0);
      expect(b.code, b.output).toBe(0);
      // One applied the migrations; the other waited on the lock and found them applied.
      expect([a.output, b.output].filter((o) => o.includes("migrations: up to date"))).toHaveLength(1);
      expect(await db.sql`SELECT email, must_change_password FROM operators`).toEqual([
        { email: "admin@runifold.local", must_change_password: true },
      ]);
      const files = readdirSync(dataRoot).filter((f) => !before.has(f) && f.startsWith("first-run-credentials-"));
      expect(files).toHaveLength(1);
      expect([a.output, b.output].filter((o) => o.includes(files[0] as string))).toHaveLength(1);
    } finally {
      await db.drop();
    }
  });
});
