import { randomBytes } from "node:crypto";
import { claimRuns, LEASE_PLAN_SETTINGS } from "@runifold/sdk/testing";
import { migrate } from "@runifold/store";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withDatabase } from "../helpers/global-setup";
import { keptClaimPlan } from "./support/kept-claim-plan";

/**
 * The lease pool turns JIT off (claim-runs.ts, LEASE_PLAN_SETTINGS). The embedded PostgreSQL of the
 * test run has no JIT, so this file asks for a server that has one: JIT_TEST_DATABASE_URL, else
 * the machine's system PostgreSQL on 127.0.0.1:5432 (present on the CI machines). Without such a
 * server the file is skipped and says why. `jit_above_cost = 0` makes every statement a JIT
 * candidate on any version; before PostgreSQL 18 the claim's disabled plan nodes alone priced it
 * past the default threshold (489 ms of compilation a claim, measured on 15).
 */
const serverUrl = process.env.JIT_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

async function jitServer(): Promise<string | undefined> {
  const probe = postgres(serverUrl, { max: 1, connect_timeout: 2, onnotice: () => {} });
  try {
    const [row] = await probe<{ available: boolean }[]>`SELECT pg_jit_available() AS available`;
    return row?.available ? serverUrl : undefined;
  } catch {
    return undefined;
  } finally {
    await probe.end({ timeout: 1 });
  }
}

const url = await jitServer();
if (!url) process.stdout.write(`claim-jit: skipped, no PostgreSQL with JIT at ${serverUrl}\n`);

describe.runIf(url)("the lease pool's claims", () => {
  const name = `t_jit_${randomBytes(6).toString("hex")}`;
  let admin: postgres.Sql;
  let db: postgres.Sql;
  let dbUrl: string;

  beforeAll(async () => {
    admin = postgres(url as string, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE DATABASE ${name}`);
    dbUrl = withDatabase(url as string, name);
    db = postgres(dbUrl, { max: 2, onnotice: () => {} });
    await migrate(db);
    const [tenant] = await db<{ id: string }[]>`INSERT INTO tenants (slug, name) VALUES ('jit', 'JIT') RETURNING id`;
    await db.unsafe(
      `INSERT INTO runs (id, tenant_id, workflow_name, workflow_version, workflow_key, status, input, origin, checkpoints, claimable_at)
       SELECT gen_random_uuid(), $1, 'plan', 1, 'plan@1', 'queued', '{}', 'engine', 0, now() - interval '1 minute'
       FROM generate_series(1, 200)`,
      [tenant?.id as string],
    );
  });

  afterAll(async () => {
    await db?.end();
    await admin?.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin?.end();
  });

  /** EXPLAIN ANALYZE of a claim on a one-connection pool with these settings (rolled back). */
  async function claimPlan(settings: Record<string, string>): Promise<string> {
    const pool = postgres(dbUrl, { max: 1, onnotice: () => {}, connection: { ...settings, jit_above_cost: "0" } });
    try {
      await claimRuns(pool, { workerId: "jit-test", workflowKeys: ["other@1"], limit: 4, leaseMs: 30_000 });
      return await keptClaimPlan(pool, "ANALYZE", "jit-test");
    } finally {
      await pool.end();
    }
  }

  it("are never compiled, whatever their plan costs", async () => {
    const plan = await claimPlan(LEASE_PLAN_SETTINGS);
    expect(plan).toContain("runs_pkey");
    expect(plan).not.toMatch(/^JIT:/m);
  });

  it("would otherwise be compiled on every execution (what jit = off guards against)", async () => {
    const { jit: _, ...withoutJitOff } = LEASE_PLAN_SETTINGS;
    expect(await claimPlan(withoutJitOff)).toMatch(/^JIT:/m);
  });
});
