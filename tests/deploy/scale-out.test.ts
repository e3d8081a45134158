import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "@runifold/store/embedded";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey, createTenant, definitionsFromStore, SEED_ACTOR, saveRoute } from "../../lib/admin";
import { freshDatabase } from "../helpers/db";
import { ROOT, waitForExit } from "../helpers/processes";
import { waitFor, waitForValue } from "../helpers/wait-for";
import { hostArgv, imageSpec } from "./dockerfile";
import { failoverClient } from "./failover-client";
import { assemble, baseEnv, requireStandaloneBuild, type Started, startProcess, stopAll } from "./support";

// Scale-out (issue 17): two web processes (the assembled standalone server, started as the web
// image starts it) and two runifold-worker processes on one Postgres. A client spread over both
// webs like a round-robin balancer creates tasks, answers their input and reads them; mid-way one
// web and one worker are SIGKILLed while that worker holds leases; the survivors finish everything.

const LEASE_MS = 3_000;
const WORK_MS = 1_500;
const TERMINAL = new Set(["completed", "failed", "cancelled"]);

let scratch: string;
let webDir: string;
let db: Awaited<ReturnType<typeof freshDatabase>>;
let token: string;
const webs: { process: Started; origin: string }[] = [];
const workers: Started[] = [];

function startWorker(index: number): Started {
  // The SDK's bin from source, as `npm start` runs it; the module is this test's.
  return startProcess(`worker-${index}`, ["node", "--import", "tsx", "packages/sdk/src/bin/runifold-worker.ts"], {
    cwd: ROOT,
    env: {
      ...baseEnv(),
      TSX_TSCONFIG_PATH: path.join(ROOT, "tsconfig.json"),
      DATABASE_URL: db.url,
      RUNIFOLD_WORKFLOWS: path.join(ROOT, "tests/deploy/fixtures/scale-workflows.ts"),
      RUNIFOLD_LEASE_MS: String(LEASE_MS),
      RUNIFOLD_POLL_MS: "200",
      RUNIFOLD_LOG_LEVEL: "warn",
    },
  });
}

async function startWeb(index: number): Promise<{ process: Started; origin: string }> {
  const spec = imageSpec("web");
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const child = startProcess(`web-${index}`, hostArgv(spec, webDir), {
    cwd: webDir,
    env: {
      ...baseEnv(),
      ...spec.env,
      DATABASE_URL: db.url,
      NEXTAUTH_SECRET: "scale-out-test-secret-0123456789",
      NEXTAUTH_URL: origin,
      RUNIFOLD_PUBLIC_URL: origin,
      HOST: "127.0.0.1",
      PORT: String(port),
      RUNIFOLD_LOG_LEVEL: "warn",
    },
  });
  return { process: child, origin };
}

const healthy = (web: { process: Started; origin: string }) =>
  waitFor(
    async () => {
      if (web.process.exitCode !== null) throw new Error(`${web.process.label} exited:\n${web.process.output()}`);
      return fetch(`${web.origin}/api/health`)
        .then((r) => (r.ok ? r.json() : undefined))
        .catch(() => undefined);
    },
    (health) => health?.workers?.online >= 2,
    { describe: `${web.process.label} to be healthy with both workers online`, timeoutMs: 90_000, everyMs: 250 },
  );

beforeAll(async () => {
  requireStandaloneBuild();
  scratch = mkdtempSync(path.join(os.tmpdir(), "runifold-scale-"));
  webDir = path.join(scratch, "web");
  db = await freshDatabase();
  const [, built] = await Promise.all([
    (async () => {
      workers.push(startWorker(1), startWorker(2));
      await waitForValue(
        async () => {
          for (const w of workers) if (w.exitCode !== null) throw new Error(`${w.label} exited:\n${w.output()}`);
          const [row] = await db.sql`SELECT count(*)::int AS n FROM workflow_definitions WHERE name LIKE 'scale-%'`;
          return Number(row?.n) === 2;
        },
        { describe: "the workers to publish the scale-out workflows", timeoutMs: 60_000, everyMs: 200 },
      );
      const ctx = { sql: db.sql, actor: SEED_ACTOR };
      const tenant = await createTenant(ctx, { slug: "scale-out", name: "Scale-out" });
      const resolveDefinition = definitionsFromStore(db.sql);
      for (const [toolName, workflowName] of [
        ["approve", "scale-approval"],
        ["report", "scale-report"],
      ] as const)
        await saveRoute(
          { ...ctx, resolveDefinition },
          { tenantId: tenant.id, toolName, workflowName, workflowVersion: 1, taskSupport: "optional" },
        );
      token = (await createKey(ctx, { tenantId: tenant.id, name: "scale-out" })).token;
    })(),
    assemble(["--web", webDir]),
  ]);
  void built;
  webs.push(await startWeb(1), await startWeb(2));
  await Promise.all(webs.map(healthy));
}, 240_000);

afterAll(async () => {
  await stopAll();
  await db?.drop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** A client error with what each web process was doing: whether it still runs, and its last output. */
function failWithWebState(error: unknown): never {
  const state = webs.map(
    (web) =>
      `${web.process.label}: exit=${web.process.exitCode} signal=${web.process.signalCode}\n${web.process.output().slice(-2_000)}`,
  );
  throw new Error(`${(error as Error).message}\n${state.join("\n")}`);
}

type Expected = { taskId: string; id: string; kind: "approve" | "report"; decision?: "approve" | "reject" };

describe("two web processes and two workers on one Postgres", () => {
  it("finish every task a client creates, answers and reads across both webs, after one web and one worker are killed", async () => {
    const client = failoverClient(
      webs.map((w) => w.origin),
      token,
    );
    const tasks: Expected[] = [];
    let serial = 0;
    const create = async (kind: Expected["kind"]) => {
      const id = `${kind}-${++serial}`;
      const answer = await client.request(
        "tools/call",
        { name: kind, arguments: { id, workMs: WORK_MS } },
        { "io.runifold/idempotencyKey": id },
      );
      const taskId = answer.body.result?.taskId;
      if (typeof taskId !== "string") throw new Error(`tools/call ${id} made no task: ${JSON.stringify(answer.body)}`);
      tasks.push({ taskId, id, kind });
    };
    // biome-ignore lint/suspicious/noExplicitAny: a raw JSON-RPC result
    const read = async (taskId: string): Promise<any> =>
      (await client.request("tasks/get", { taskId }).catch((error) => failWithWebState(error))).body.result;
    const answer = async (task: Expected, decision: "approve" | "reject") => {
      task.decision = decision;
      const ack = await client.request("tasks/update", {
        taskId: task.taskId,
        inputResponses: { decision: { action: "accept", content: { decision } } },
      });
      expect(ack.body.error, JSON.stringify(ack.body)).toBeUndefined();
    };
    const waitingFor = (task: Expected) =>
      waitFor(
        () => read(task.taskId),
        (t) => t?.status === "input_required",
        { describe: `${task.id} to ask for its decision`, timeoutMs: 30_000, everyMs: 150 },
      );

    // Phase 1: both webs and both workers.
    for (let i = 0; i < 8; i++) await create(i % 2 === 0 ? "approve" : "report");
    const approvals = () => tasks.filter((t) => t.kind === "approve");
    for (const task of approvals()) await waitingFor(task);
    for (const [i, task] of approvals().slice(0, 2).entries()) await answer(task, i % 2 === 0 ? "approve" : "reject");
    for (let i = 0; i < 4; i++) await create("report");
    expect(client.served.every((n) => n > 0)).toBe(true);

    // The fault: worker 1 while a step it has just claimed still has most of WORK_MS to go (so the run
    // is certainly stranded with it), and web 1. Runs already leased at the first look are ignored:
    // how far along their steps are is unknown.
    const [victim] = await db.sql`SELECT id FROM worker_registrations WHERE pid = ${String(workers[0]?.pid)}`;
    const leasedByVictim = async () =>
      (await db.sql`SELECT id FROM runs WHERE lease_owner = ${victim?.id} AND status = 'leased'`).map((r) => r.id as string);
    const firstSeen = new Map<string, number>();
    const preexisting = new Set(await leasedByVictim());
    let probes = 0;
    await waitFor(
      async () => {
        const now = Date.now();
        const leased = await leasedByVictim();
        for (const id of leased) if (!firstSeen.has(id)) firstSeen.set(id, now);
        // Seen within a poll of its claim, so its step has most of WORK_MS left.
        const fresh = leased.filter((id) => !preexisting.has(id) && now - (firstSeen.get(id) as number) < WORK_MS / 3);
        // More work for the two workers' claim race while worker 1 has nothing new in hand.
        if (fresh.length === 0 && probes++ % 10 === 0) await create("report");
        return fresh;
      },
      (fresh) => fresh.length > 0,
      { describe: "worker 1 to claim a new run", timeoutMs: 30_000, everyMs: 25 },
    );
    for (const target of [workers[0], webs[0]?.process]) target?.kill("SIGKILL");
    await Promise.all([waitForExit(workers[0] as Started), waitForExit(webs[0]?.process as Started)]);
    const stranded = await db.sql`SELECT id, attempt FROM runs WHERE lease_owner = ${victim?.id} AND status = 'leased'`;
    expect(stranded.length).toBeGreaterThan(0);

    // Phase 2: the client carries on; requests to the dead web fail over to the live one.
    for (let i = 0; i < 4; i++) await create(i % 2 === 0 ? "approve" : "report");
    for (const [i, task] of approvals().entries()) {
      if (task.decision) continue;
      await waitingFor(task);
      await answer(task, i % 2 === 0 ? "approve" : "reject");
    }

    const finals = await Promise.all(
      tasks.map((task) =>
        waitFor(
          () => read(task.taskId),
          (t) => TERMINAL.has(t?.status),
          { describe: `${task.id} to finish`, timeoutMs: 60_000, everyMs: 200 },
        ),
      ),
    );
    const wrong = tasks.flatMap((task, i) => {
      const final = finals[i];
      const expected =
        task.kind === "approve"
          ? { id: task.id, decision: task.decision === "approve" ? "approved" : "rejected" }
          : { id: task.id, rows: task.id.length * 7 };
      const ok = final?.status === "completed" && JSON.stringify(final.result?.structuredContent) === JSON.stringify(expected);
      return ok ? [] : [{ task, final }];
    });
    const [stored] =
      await db.sql`SELECT count(*)::int AS runs, count(*) FILTER (WHERE status = 'completed')::int AS completed FROM runs`;
    const recovered =
      await db.sql`SELECT id, attempt, status FROM runs WHERE id IN ${db.sql(stranded.map((r) => r.id as string))}`;
    process.stdout.write(
      `[deploy] scale-out: tasks=${tasks.length} completed=${stored?.completed} stranded-on-killed-worker=${stranded.length} ` +
        `served=${client.served.join("/")} failovers=${client.counts.failovers} 5xx=${client.counts.serverErrors}\n`,
    );
    expect(wrong).toEqual([]);
    expect(stored).toEqual({ runs: tasks.length, completed: tasks.length });
    expect(client.counts.serverErrors).toBe(0);
    // The killed worker's runs were claimed again (a higher attempt: the fencing token) and finished.
    const attemptAtKill = new Map(stranded.map((r) => [r.id as string, r.attempt as number]));
    for (const run of recovered) {
      expect(run.status).toBe("completed");
      expect(run.attempt as number).toBeGreaterThan(attemptAtKill.get(run.id as string) as number);
    }
  });
});
