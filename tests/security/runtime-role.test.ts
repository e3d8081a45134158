import { randomBytes } from "node:crypto";
import {
  createRegistry,
  createRun,
  createWorker,
  defineWorkflow,
  provideInputForTenant,
  sendSignalForTenant,
  silentLogger,
  type Worker,
} from "@runifold/sdk";
import { claimRuns, finishRun } from "@runifold/sdk/testing";
import { createRuntimeLogins, migrate } from "@runifold/store";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { privilegedRoleWarning } from "../../lib/server/role-check";
import { listTaskPage } from "../../lib/tasks";
import { freshDatabase } from "../helpers/db";
import { waitFor } from "../helpers/wait-for";

/**
 * Security review M7: the app and workers connect as a login role in the database's runtime role
 * (migration 0020, per database since 0035: runifold_rt_<db>). It runs the real engine and web paths, but cannot change the schema or rewrite
 * history. (No row-level security: docs/security.md, V4, says why.)
 */
const tag = randomBytes(5).toString("hex");
const password = randomBytes(12).toString("hex");
let logins: string[] = [];
let db: Awaited<ReturnType<typeof freshDatabase>>;
let admin: postgres.Sql;
let app: postgres.Sql;
/** The worker's login (runifold_worker_<db> in runifold_wk_<db>, migration 0036). */
let workerSql: postgres.Sql;
let worker: Worker | undefined;

const flow = defineWorkflow({
  name: "rt_flow",
  version: 1,
  input: z.object({ n: z.number() }),
  async run(ctx, input) {
    const doubled = await ctx.step("double", async () => input.n * 2);
    const signal = await ctx.waitForSignal<{ go: boolean }>("go");
    const answer = await ctx.requestInput("ok", {
      method: "elicitation/create",
      params: { message: "ok?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } },
    });
    return { content: [{ type: "text" as const, text: JSON.stringify({ doubled, signal, answer }) }] };
  },
});

async function tenant(sql: postgres.Sql, slug: string): Promise<string> {
  const [row] = await sql<{ id: string }[]>`INSERT INTO tenants (slug, name) VALUES (${slug}, ${slug}) RETURNING id`;
  if (!row) throw new Error("no tenant");
  return row.id;
}

async function status(runId: string): Promise<string | undefined> {
  const [row] = await db.sql<{ status: string }[]>`SELECT status FROM runs WHERE id = ${runId}`;
  return row?.status;
}

/** The SQLSTATE a statement fails with (42501 = insufficient_privilege). */
async function refusal(statement: Promise<unknown>): Promise<string | undefined> {
  try {
    await statement;
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

beforeAll(async () => {
  db = await freshDatabase();
  admin = postgres(inject("adminDatabaseUrl"), { max: 1, onnotice: () => {} });
  // As `runifold db create-runtime-role` does: the web's login and the worker's.
  const created = await createRuntimeLogins(db.sql, { ownerUrl: db.url });
  logins = created.logins.flatMap((login) => [login.user, login.group]);
  const url = (kind: string) => created.logins.find((login) => login.kind === kind)?.url as string;
  app = postgres(url("web"), { max: 4, onnotice: () => {} });
  workerSql = postgres(url("worker"), { max: 4, onnotice: () => {} });
});

afterAll(async () => {
  await worker?.stop(500);
  await app?.end({ timeout: 5 });
  await workerSql?.end({ timeout: 5 });
  await db?.drop();
  for (const name of logins) await admin?.unsafe(`DROP ROLE IF EXISTS "${name}"`);
  await admin?.end();
});

describe("the runtime role (M7)", () => {
  it("is neither superuser nor BYPASSRLS, owns nothing and may not create in the schema", async () => {
    const [me] = await app<{ rolsuper: boolean; rolbypassrls: boolean; create: boolean; owned: number }[]>`
      SELECT r.rolsuper, r.rolbypassrls, has_schema_privilege(current_schema(), 'CREATE') AS create,
             (SELECT count(*)::int FROM pg_class c WHERE pg_has_role(c.relowner, 'USAGE')) AS owned
      FROM pg_roles r WHERE r.rolname = current_user`;
    expect(me).toEqual({ rolsuper: false, rolbypassrls: false, create: false, owned: 0 });
  });

  it("runs the engine and web paths: create, claim, checkpoint, signal, answer, finish, list", async () => {
    const acme = await tenant(app, `rt-acme-${tag}`);
    const run = await createRun(app, {
      tenantId: acme,
      workflowName: flow.name,
      workflowVersion: 1,
      input: { n: 21 },
      definition: flow,
    });
    worker = createWorker({ sql: workerSql, registry: createRegistry([flow]), logger: silentLogger, concurrency: 2, pollMs: 50 });
    await worker.start();
    await waitFor(
      () => status(run.id),
      (s): s is string => s === "waiting_signal",
      { describe: "the run to wait for its signal" },
    );
    expect(await sendSignalForTenant(app, { runId: run.id, tenantId: acme, name: "go", payload: { go: true } })).toBe(true);
    await waitFor(
      () => status(run.id),
      (s): s is string => s === "waiting_input",
      { describe: "the run to ask for input" },
    );
    const answered = await provideInputForTenant(app, {
      runId: run.id,
      tenantId: acme,
      responses: { ok: { action: "accept", content: { ok: true } } },
      actor: "test",
    });
    expect(answered).toEqual({ found: true, accepted: ["ok"], resumed: true });
    await waitFor(
      () => status(run.id),
      (s): s is string => s === "completed",
      { describe: "the run to complete" },
    );

    // The ops a worker performs, one by one, on a workflow no worker serves.
    const manual = await createRun(app, { tenantId: acme, workflowName: "rt_manual", workflowVersion: 1, input: {} });
    const [claimed] = await claimRuns(workerSql, {
      workerId: "rt-test",
      workflowKeys: ["rt_manual@1"],
      limit: 1,
      leaseMs: 10_000,
    });
    expect(claimed?.id).toBe(manual.id);
    const lease = { runId: manual.id, workerId: "rt-test", attempt: claimed?.attempt ?? 0, leaseMs: 10_000 };
    expect(
      await finishRun(workerSql, lease, { status: "completed", result: { content: [{ type: "text", text: "done" }] } }),
    ).toBe(true);

    const page = await listTaskPage(app, { scope: [acme], tenantId: acme, limit: 10 } as Parameters<typeof listTaskPage>[1]);
    expect(page.map((row) => [row.id, row.status]).sort()).toEqual(
      [
        [run.id, "completed"],
        [manual.id, "completed"],
      ].sort(),
    );
  });

  it("gives the worker's login no sign-in, session, OAuth token or server secret (F4)", async () => {
    for (const table of [
      "operator_sessions",
      "login_throttle",
      "operator_recovery_codes",
      "oauth_clients",
      "oauth_authorization_codes",
      "oauth_tokens",
      "server_secrets",
    ]) {
      expect(await refusal(workerSql.unsafe(`SELECT 1 FROM ${table} LIMIT 1`)), table).toBe("42501");
      expect(await refusal(app.unsafe(`SELECT 1 FROM ${table} LIMIT 1`)), table).toBeUndefined();
    }
    const [me] = await workerSql<{ rolsuper: boolean; rolbypassrls: boolean }[]>`
      SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user`;
    expect(me).toEqual({ rolsuper: false, rolbypassrls: false });
  });

  it("makes the web warn at start-up about a superuser role, not about its runtime login (F4)", async () => {
    expect(await privilegedRoleWarning(app)).toBeUndefined();
    const name = new URL(db.url).pathname.slice(1);
    expect(await privilegedRoleWarning(db.sql)).toMatch(
      new RegExp(`, a superuser: connect as a runtime login such as runifold_web_${name} `),
    );
  });

  it("refuses DDL: CREATE, ALTER, DROP and TRUNCATE", async () => {
    expect(await refusal(app`CREATE TABLE rt_probe (id int)`)).toBe("42501");
    expect(await refusal(app`ALTER TABLE runs ADD COLUMN rt_probe int`)).toBe("42501");
    expect(await refusal(app`CREATE INDEX rt_probe ON runs (status)`)).toBe("42501");
    expect(await refusal(app`DROP TABLE tenants`)).toBe("42501");
    expect(await refusal(app`TRUNCATE audit_events`)).toBe("42501");
    expect(await refusal(app`CREATE FUNCTION rt_probe() RETURNS int LANGUAGE sql AS 'SELECT 1'`)).toBe("42501");
  });

  it("keeps history append-only and the migration ledger read-only", async () => {
    await app`INSERT INTO audit_events (actor, action, fields) VALUES ('rt', 'rt.probe', '{}')`;
    expect(await refusal(app`UPDATE audit_events SET action = 'rt.rewritten'`)).toBe("42501");
    expect(await refusal(app`UPDATE run_events SET type = 'rewritten'`)).toBe("42501");
    expect(await refusal(app`DELETE FROM tombstones`)).toBe("42501");
    expect(await refusal(app`DELETE FROM runifold_migrations`)).toBe("42501");
    expect((await app`SELECT count(*)::int AS n FROM runifold_migrations`)[0]?.n).toBeGreaterThan(0);
    // Retention still removes old audit events, and tombstones past their retention through the
    // one function that may (never one younger than 30 days: tests/retention/growth.test.ts).
    expect(await refusal(app`DELETE FROM audit_events WHERE action = 'rt.probe'`)).toBeUndefined();
    expect(await refusal(app`SELECT runifold_purge_tombstones(interval '365 days', 10)`)).toBeUndefined();
  });

  it("answers another tenant's run as not found on the tenant-scoped write paths", async () => {
    const a = await tenant(db.sql, `rt-c-${tag}`);
    const b = await tenant(db.sql, `rt-d-${tag}`);
    const runB = await createRun(db.sql, { tenantId: b, workflowName: "rt_idle", workflowVersion: 1, input: {} });
    expect(await sendSignalForTenant(app, { runId: runB.id, tenantId: a, name: "go", payload: null })).toBe(false);
    const answer = await provideInputForTenant(app, { runId: runB.id, tenantId: a, responses: {}, actor: "rt" });
    expect(answer.found).toBe(false);
  });
});

describe("no row-level security on runs (M7, docs/security.md V4)", () => {
  it("keeps the console's input search on its GIN index for the runtime role", async () => {
    // With RLS enabled (any policy) PostgreSQL hides column statistics from non-leakproof
    // operators such as jsonb @> for every role subject to it; the planner then guesses 1% and
    // walks runs_created_idx instead (measured: 7 ms -> 490 ms at 300k runs).
    const t = await tenant(db.sql, `rt-plan-${tag}`);
    await db.sql`
      INSERT INTO runs (id, tenant_id, workflow_name, workflow_version, workflow_key, status, input, created_at)
      SELECT gen_random_uuid(), ${t}, 'rt_plan', 1, 'rt_plan@1', 'completed', jsonb_build_object('n', g), now() - g * interval '1 second'
      FROM generate_series(1, 30000) g`;
    await db.sql`ANALYZE runs`;
    const search = `EXPLAIN SELECT id FROM runs r WHERE r.input @> '{"n": 4242}'
                    ORDER BY created_at DESC NULLS LAST, id DESC NULLS LAST LIMIT 50`;
    const plan = (await app.unsafe(search)).map((row) => String(row["QUERY PLAN"])).join("\n");
    expect(plan).toMatch(/runs_input_path_idx/);
  });
});

describe("migrations 0020 and 0035 as a migrator without CREATEROLE (M7, F3)", () => {
  it("apply, give the old cluster-wide role nothing, and the documented grant finishes the job", async () => {
    const owner = `rf_own_${randomBytes(5).toString("hex")}`;
    const database = `t_own_${randomBytes(5).toString("hex")}`;
    await admin.unsafe(`CREATE ROLE ${owner} LOGIN PASSWORD '${password}' NOSUPERUSER NOCREATEROLE`);
    await admin.unsafe(`CREATE DATABASE ${database} OWNER ${owner}`);
    const url = new URL(dbUrlFor(owner));
    url.pathname = `/${database}`;
    const notices: string[] = [];
    const sql = postgres(url.toString(), { max: 1, onnotice: (n) => notices.push(String(n.message)) });
    try {
      await migrate(sql);
      expect(notices.join("\n")).toContain(`role runifold_rt_${database} does not exist and ${owner} may not create it`);
      const [legacy] = await sql<{ runtime: boolean }[]>`
        SELECT has_table_privilege('runifold_runtime', 'runs', 'SELECT') AS runtime`;
      expect(legacy).toEqual({ runtime: false });
      // docs/deploy.md, "Database roles", by hand: an administrator creates the role, the owner grants it.
      await admin.unsafe(`CREATE ROLE runifold_rt_${database} NOLOGIN`);
      expect((await sql`SELECT runifold_grant_runtime(runifold_runtime_role()) AS ok`)[0]?.ok).toBe(true);
      const [grants] = await sql<{ runtime: boolean; update: boolean; create: boolean; connect: boolean; public: boolean }[]>`
        SELECT has_table_privilege(runifold_runtime_role(), 'runs', 'SELECT, INSERT, UPDATE, DELETE') AS runtime,
               has_table_privilege(runifold_runtime_role(), 'audit_events', 'UPDATE') AS update,
               has_schema_privilege(runifold_runtime_role(), current_schema(), 'CREATE') AS create,
               has_database_privilege(runifold_runtime_role(), current_database(), 'CONNECT') AS connect,
               has_database_privilege('public', current_database(), 'CONNECT') AS public`;
      expect(grants).toEqual({ runtime: true, update: false, create: false, connect: true, public: false });
      expect((await migrate(sql)).applied).toEqual([]); // and again: idempotent
    } finally {
      await sql.end({ timeout: 5 });
      await admin.unsafe(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.unsafe(`DROP ROLE IF EXISTS runifold_rt_${database}`);
      await admin.unsafe(`DROP ROLE IF EXISTS ${owner}`);
    }
  });
});

function dbUrlFor(user: string): string {
  const url = new URL(db.url);
  url.username = user;
  url.password = password;
  return url.toString();
}
