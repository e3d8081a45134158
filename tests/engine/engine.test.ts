import {
  cancelRun,
  createRegistry,
  createRun,
  createWorker,
  InvalidWorkflowInput,
  provideInput,
  sendSignal,
  silentLogger,
} from "@runifold/sdk";
import { finishRun } from "@runifold/sdk/testing";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateReport } from "../../workflows/demo/generate-report";
import { everything, leaky, STEP_LOG_DDL, slowSteps, testRegistry } from "../fixtures/engine-workflows";
import { freshDatabase } from "../helpers/db";
import { spawnTs, until, waitForExit } from "../helpers/processes";
import { holdsFor } from "../helpers/wait-for";

const TENANT = "00000000-0000-4000-8000-000000000001";
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  process.env.DATABASE_URL = db.url; // the fixture workflows' step log connects here
  await sql.unsafe(STEP_LOG_DDL);
  await sql`INSERT INTO tenants (id, slug, name) VALUES (${TENANT}, 'engine-test', 'Engine test')`;
});
afterAll(async () => {
  await db.drop();
});

const statusOf = async (id: string) => (await sql`SELECT status FROM runs WHERE id = ${id}`)[0]?.status as string;
const stepRuns = async (id: string, key: string) =>
  Number((await sql`SELECT count(*) AS n FROM step_log WHERE run_id = ${id} AND key = ${key}`)[0]?.n);
const terminalEvents = async (id: string) =>
  Number(
    (await sql`SELECT count(*) AS n FROM run_events WHERE run_id = ${id} AND type IN ('completed','failed','cancelled')`)[0]?.n,
  );

function workerEnv(extra: Record<string, string> = {}) {
  return { DATABASE_URL: db.url, RUNIFOLD_LEASE_MS: "1500", RUNIFOLD_POLL_MS: "200", ...extra };
}

describe("engine across worker processes", () => {
  it("runs steps, a sleep, a signal wait and an input request to completion across two worker processes", async () => {
    const workers = [
      spawnTs("tests/helpers/test-worker-process.ts", workerEnv()),
      spawnTs("tests/helpers/test-worker-process.ts", workerEnv()),
    ];
    try {
      const run = await createRun(sql, {
        tenantId: TENANT,
        workflowName: "everything",
        workflowVersion: 1,
        input: { label: "x" },
        definition: everything,
      });
      await until(async () => (await statusOf(run.id)) === "waiting_signal", 30_000).catch(async (e) => {
        console.log(
          await sql`SELECT type, payload FROM run_events WHERE run_id = ${run.id}`,
          workers.map((w) => w.output()),
        );
        throw e;
      });
      expect(await sendSignal(sql, { runId: run.id, name: "go", payload: { add: 22 } })).toBe(true);
      await until(async () => (await statusOf(run.id)) === "waiting_input", 20_000);
      const answered = await provideInput(sql, {
        runId: run.id,
        responses: { confirm: { action: "accept", content: { ok: true } }, bogus: { action: "accept" } },
        actor: "test",
      });
      expect(answered).toEqual({ found: true, accepted: ["confirm"], resumed: true });
      await until(async () => (await statusOf(run.id)) === "completed", 20_000);
      const terminal = await sql`SELECT payload FROM run_events WHERE run_id = ${run.id} AND type = 'completed'`;
      expect(terminal[0]?.payload.result.content[0].text).toBe("x: 42 confirmed");
      expect(await stepRuns(run.id, "first")).toBe(1);
      expect(await stepRuns(run.id, "second")).toBe(1);
      const leasedBy =
        await sql`SELECT DISTINCT payload->>'worker' AS w FROM run_events WHERE run_id = ${run.id} AND type = 'leased'`;
      expect(leasedBy.length).toBeGreaterThanOrEqual(1);
      const registered = await sql`SELECT count(*) AS n FROM worker_registrations WHERE stopped_at IS NULL`;
      expect(Number(registered[0]?.n)).toBe(2);
    } finally {
      for (const w of workers) w.kill("SIGTERM");
      await Promise.all(workers.map((w) => waitForExit(w)));
    }
  });

  it("resumes a run after its worker is SIGKILLed mid-step, without re-running committed steps", async () => {
    const victim = spawnTs("tests/helpers/test-worker-process.ts", workerEnv());
    let survivor: ReturnType<typeof spawnTs> | undefined;
    try {
      const run = await createRun(sql, {
        tenantId: TENANT,
        workflowName: "slow-steps",
        workflowVersion: 1,
        input: { slowMs: 4_000 },
        definition: slowSteps,
      });
      await until(async () => (await stepRuns(run.id, "slow")) === 1, 30_000);
      victim.kill("SIGKILL");
      await waitForExit(victim);
      survivor = spawnTs("tests/helpers/test-worker-process.ts", workerEnv());
      // Recovery needs the lease (1.5 s) to lapse, the slow step to run again (4 s) and a worker to
      // start; the bound only limits how long a failure takes on a loaded machine.
      await until(async () => (await statusOf(run.id)) === "completed", 60_000);
      // The committed step never runs again; the one in flight at the kill runs again at least once.
      // Not exactly once more: on a loaded machine the survivor's own 1.5 s lease can lapse during the
      // 4 s step (renewals starved), and the engine then rightly hands the step to a new attempt.
      expect(await stepRuns(run.id, "fast")).toBe(1);
      expect(await stepRuns(run.id, "slow")).toBeGreaterThanOrEqual(2);
      expect(await terminalEvents(run.id)).toBe(1);
    } finally {
      victim.kill("SIGKILL");
      survivor?.kill("SIGTERM");
      if (survivor) await waitForExit(survivor);
    }
  });
});

describe("engine in process", () => {
  it("aborts ctx.signal on a cancel by notification, long before a lease renewal would notice, and refuses the late completion", async () => {
    // A 60 s lease renews every 20 s: an abort that arrives within 10 s came by the cancel notification,
    // not by a renewal that found the run cancelled; no latency bound a loaded machine could break.
    const worker = createWorker({ sql, registry: testRegistry, logger: silentLogger, leaseMs: 60_000, pollMs: 100 });
    await worker.start();
    try {
      const run = await createRun(sql, {
        tenantId: TENANT,
        workflowName: "slow-steps",
        workflowVersion: 1,
        input: { slowMs: 10_000 },
        definition: slowSteps,
      });
      await until(async () => (await stepRuns(run.id, "slow")) === 1);
      expect(await cancelRun(sql, { runId: run.id, tenantId: TENANT })).toEqual({ outcome: "cancelled" });
      await until(async () => (await stepRuns(run.id, "slow-aborted")) === 1, 10_000, 20);
      await until(async () => worker.activeRuns() === 0, 5_000);
      expect(await statusOf(run.id)).toBe("cancelled");
      const steps = await sql`SELECT key FROM run_steps WHERE run_id = ${run.id} ORDER BY key`;
      expect(steps.map((s) => s.key)).toEqual(["fast"]);
      expect(await terminalEvents(run.id)).toBe(1);
    } finally {
      await worker.stop(1_000);
    }
  });

  it("never changes a terminal run, through engine operations or direct SQL", async () => {
    const run = await createRun(sql, { tenantId: TENANT, workflowName: "everything", workflowVersion: 1, input: { label: "t" } });
    expect(await cancelRun(sql, { runId: run.id })).toEqual({ outcome: "cancelled" });
    expect(await cancelRun(sql, { runId: run.id })).toEqual({ outcome: "already_terminal", status: "cancelled" });
    expect(await sendSignal(sql, { runId: run.id, name: "go" })).toBe(false);
    expect(
      (await provideInput(sql, { runId: run.id, responses: { confirm: { action: "accept" } }, actor: "t" })).accepted,
    ).toEqual([]);
    const finished = await finishRun(
      sql,
      { runId: run.id, workerId: "w", attempt: 0, leaseMs: 1000 },
      { status: "completed", result: { content: [] } },
    );
    expect(finished).toBe(false);
    await expect(sql`UPDATE runs SET status = 'queued' WHERE id = ${run.id}`).rejects.toThrow(/terminal/);
    await expect(sql`UPDATE runs SET status_message = 'x' WHERE id = ${run.id}`).rejects.toThrow(/terminal/);
    await expect(sql`UPDATE run_events SET type = 'completed' WHERE run_id = ${run.id}`).rejects.toThrow(/append-only/);
    await expect(sql`DELETE FROM run_events WHERE run_id = ${run.id}`).rejects.toThrow(/append-only/);
    expect(await statusOf(run.id)).toBe("cancelled");
    expect(await terminalEvents(run.id)).toBe(1);
  });

  it("never claims a workflow version the worker does not serve", async () => {
    const worker = createWorker({ sql, registry: createRegistry([generateReport]), logger: silentLogger, pollMs: 50 });
    await worker.start();
    try {
      const v2 = await createRun(sql, {
        tenantId: TENANT,
        workflowName: "generate-report",
        workflowVersion: 2,
        input: { report_id: "r" },
      });
      const v1 = await createRun(sql, {
        tenantId: TENANT,
        workflowName: "generate-report",
        workflowVersion: 1,
        input: { report_id: "r", settle_ms: 0 },
        definition: generateReport,
      });
      await until(async () => (await statusOf(v1.id)) === "completed", 20_000);
      // v1 was claimed past v2 (created first), so the claim already passed v2 over; it must stay
      // unclaimed through several more poll rounds (pollMs 50).
      await holdsFor(
        () => statusOf(v2.id),
        (status) => status === "queued",
        { describe: "v2 to stay queued", forMs: 500 },
      );
      const leases = await sql`SELECT count(*) AS n FROM run_events WHERE run_id = ${v2.id} AND type = 'leased'`;
      expect(Number(leases[0]?.n)).toBe(0);
    } finally {
      await worker.stop(1_000);
    }
  });

  it("rejects invalid input at creation with a clear error and writes nothing", async () => {
    const before = Number((await sql`SELECT count(*) AS n FROM runs`)[0]?.n);
    const attempt = createRun(sql, {
      tenantId: TENANT,
      workflowName: "generate-report",
      workflowVersion: 1,
      input: { report_id: 42 },
      definition: generateReport,
    });
    await expect(attempt).rejects.toBeInstanceOf(InvalidWorkflowInput);
    await expect(attempt).rejects.toThrow(/report_id/);
    expect(Number((await sql`SELECT count(*) AS n FROM runs`)[0]?.n)).toBe(before);
  });

  it("fails a run whose step throws, with a safe message and retries only when retryable", async () => {
    const worker = createWorker({ sql, registry: testRegistry, logger: silentLogger, pollMs: 50 });
    await worker.start();
    try {
      const fatal = await createRun(sql, {
        tenantId: TENANT,
        workflowName: "leaky",
        workflowVersion: 1,
        input: { retryable: false },
        definition: leaky,
      });
      const flaky = await createRun(sql, {
        tenantId: TENANT,
        workflowName: "leaky",
        workflowVersion: 1,
        input: { retryable: true },
        definition: leaky,
      });
      await until(async () => (await statusOf(fatal.id)) === "failed" && (await statusOf(flaky.id)) === "failed", 20_000);
      for (const run of [fatal, flaky]) {
        const [event] = await sql`SELECT payload FROM run_events WHERE run_id = ${run.id} AND type = 'failed'`;
        expect(event?.payload.error).toEqual({
          code: -32603,
          message: 'Workflow leaky@1 failed in step "explode"',
          data: { cause: { code: "step_failed", step: "explode", attempt: 1 } },
        });
        expect(JSON.stringify(event?.payload)).not.toMatch(/hunter2|SELECT|ECONNREFUSED/);
      }
      expect(await stepRuns(fatal.id, "explode")).toBe(1);
      expect(await stepRuns(flaky.id, "explode")).toBe(3);
    } finally {
      await worker.stop(1_000);
    }
  });
});
