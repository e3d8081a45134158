import os from "node:os";
import { createRun } from "@runifold/sdk";
import { freePort } from "@runifold/store/embedded";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { echo } from "../fixtures/worker-modules/good";
import { freshDatabase } from "../helpers/db";
import { familyTypes, sampleValue } from "../helpers/prometheus";
import { waitForRunStatus } from "../helpers/runs";
import { waitFor } from "../helpers/wait-for";
import { registrationOf, startWorker, stopWorker, WORKER_MODULES, type WorkerProcess } from "./worker-bin";

/**
 * RUNIFOLD_METRICS_PORT as a team runs it: the SDK's runifold-worker as a real process serving
 * GET /metrics, scraped over real sockets while it claims and finishes runs (one of them recovered
 * from an expired lease), and refused to whoever the scrape rule refuses.
 */
const TENANT = "00000000-0000-4000-8000-0000000000d1";
const TOKEN = "worker-scrape-token-0123456789";
const WORKFLOW = "cli-echo@1";

const lan = Object.values(os.networkInterfaces())
  .flat()
  .find((i) => i && i.family === "IPv4" && !i.internal)?.address;

let db: Awaited<ReturnType<typeof freshDatabase>>;
const children: WorkerProcess[] = [];

beforeAll(async () => {
  db = await freshDatabase();
  await db.sql`INSERT INTO tenants (id, slug, name) VALUES (${TENANT}, 'worker-metrics', 'Worker metrics')`;
});
afterAll(async () => {
  for (const child of children) await stopWorker(child);
  await db.drop();
});

/** A worker process serving good.ts with its metrics on a free port (bound to every interface). */
async function metricsWorker(env: Record<string, string> = {}): Promise<{ port: number; child: WorkerProcess }> {
  const port = await freePort();
  const child = startWorker(["--workflows", `${WORKER_MODULES}/good.ts`], {
    DATABASE_URL: db.url,
    RUNIFOLD_METRICS_PORT: String(port),
    HOST: "0.0.0.0",
    ...env,
  });
  children.push(child);
  await registrationOf(db.sql, child);
  return { port, child };
}

async function scrape(port: number, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`, { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
  return response.text();
}

describe("runifold-worker RUNIFOLD_METRICS_PORT", () => {
  let port: number;

  beforeAll(async () => {
    ({ port } = await metricsWorker());
  });

  it("serves the worker's families and the process metrics", async () => {
    const text = await scrape(port);
    expect(familyTypes(text)).toMatchObject({
      runifold_attempts_total: "counter",
      runifold_attempts_failed_total: "counter",
      runifold_attempts_in_progress: "gauge",
      runifold_lease_expiries_recovered_total: "counter",
      runifold_step_duration_seconds: "histogram",
      runifold_claim_to_start_seconds: "histogram",
      process_cpu_seconds_total: "counter",
      nodejs_eventloop_lag_seconds: "gauge",
    });
    expect(sampleValue(text, "runifold_attempts_in_progress")).toBe(0);
  });

  it("counts the attempts, steps and claim latency of the runs it executes", async () => {
    const before = await scrape(port);
    const completed = (text: string) =>
      sampleValue(text, "runifold_attempts_total", { workflow: WORKFLOW, outcome: "completed" }) ?? 0;
    const run = await createRun(db.sql, {
      tenantId: TENANT,
      workflowName: "cli-echo",
      workflowVersion: 1,
      input: { text: "hi" },
      definition: echo,
    });
    await waitForRunStatus(db.sql, run.id, "completed");
    const after = await waitFor(
      () => scrape(port),
      (text) => completed(text) === completed(before) + 1,
      { describe: "the completed attempt to be counted" },
    );
    expect(sampleValue(after, "runifold_claim_to_start_seconds_count", { workflow: WORKFLOW })).toBe(1);
    expect(sampleValue(after, "runifold_step_duration_seconds_count", { workflow: WORKFLOW, outcome: "completed" })).toBe(1);
    expect(sampleValue(after, "runifold_attempts_in_progress")).toBe(0);
    expect(sampleValue(after, "runifold_attempts_failed_total", { workflow: WORKFLOW }) ?? 0).toBe(0);
    expect(after).not.toContain(run.id);
  });

  it("counts a claim that takes over an expired lease as a lease expiry recovered", async () => {
    // A run some crashed worker held: its lease ran out a second ago (created and leased in one transaction).
    const runId = await db.sql.begin(async (tx) => {
      const run = await createRun(tx, {
        tenantId: TENANT,
        workflowName: "cli-echo",
        workflowVersion: 1,
        input: { text: "again" },
        definition: echo,
      });
      await tx`UPDATE runs SET status = 'leased', lease_owner = 'crashed-worker', attempt = 1,
                 lease_expires_at = now() - interval '1 second', claimable_at = now() - interval '1 second'
               WHERE id = ${run.id}`;
      return run.id;
    });
    await waitForRunStatus(db.sql, runId, "completed");
    const text = await waitFor(
      () => scrape(port),
      (seen) => sampleValue(seen, "runifold_lease_expiries_recovered_total", { workflow: WORKFLOW }) === 1,
      { describe: "the recovered lease to be counted" },
    );
    expect(sampleValue(text, "runifold_claim_to_start_seconds_count", { workflow: WORKFLOW })).toBe(2);
  });

  it("without a token it answers loopback only: 403 to a peer on the network, 404 off /metrics", async () => {
    if (lan) expect((await fetch(`http://${lan}:${port}/metrics`)).status).toBe(403);
    const relayed = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { "x-forwarded-for": "203.0.113.5" } });
    expect(relayed.status).toBe(403);
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(404);
  });
});

describe("runifold-worker RUNIFOLD_METRICS_TOKEN", () => {
  it("requires the Bearer token from everywhere, loopback included", async () => {
    const { port } = await metricsWorker({ RUNIFOLD_METRICS_TOKEN: TOKEN });
    const refused = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer /);
    expect(
      (await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: "Bearer wrong-token-0123456789" } })).status,
    ).toBe(401);
    expect(await scrape(port, { authorization: `Bearer ${TOKEN}` })).toContain("runifold_attempts_total");
    if (lan) {
      expect((await fetch(`http://${lan}:${port}/metrics`)).status).toBe(401);
      expect((await fetch(`http://${lan}:${port}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    }
  });
});
