import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import {
  createRegistry,
  createRun,
  createWorker,
  defineWorkflow,
  describeDefinition,
  provideInput,
  publishDefinitions,
  silentLogger,
  type Worker,
} from "@runifold/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createTenant } from "../../db/queries/tenants";
import { installPeerHook } from "../../lib/auth";
import { createMetricsHandler } from "../../lib/metrics";
import { freshDatabase } from "../helpers/db";
import { familyTypes, sampleValue } from "../helpers/prometheus";
import { waitForRunStatus } from "../helpers/runs";
import { waitFor } from "../helpers/wait-for";

/**
 * GET /api/metrics as the web process serves it: lib/metrics' handler behind a real HTTP server
 * with the peer hook installed (as instrumentation.ts does), on a real database, scraped while a
 * run is created, claimed, waits for input and finishes.
 */
const TOKEN = "scrape-token-0123456789abcdef";
const WORKFLOW = "obs-approve@1";

let release: () => void = () => {};
const gate = new Promise<void>((resolve) => {
  release = resolve;
});

const approve = defineWorkflow({
  name: "obs-approve",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    // Held by the test: the run stays leased (claimed) until it looks.
    await ctx.step("prepare", async () => {
      await gate;
      return "ready";
    });
    const answer = await ctx.requestInput("approval", {
      method: "elicitation/create",
      params: { message: "Approve?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } },
    });
    return { content: [{ type: "text", text: answer.action }] };
  },
});

let db: Awaited<ReturnType<typeof freshDatabase>>;
let tenant: { id: string; slug: string };
let worker: Worker | undefined;
const servers: http.Server[] = [];

/** A network address of this machine that is not loopback, when it has one: a real remote peer. */
const lan = Object.values(os.networkInterfaces())
  .flat()
  .find((i) => i && i.family === "IPv4" && !i.internal)?.address;

beforeAll(async () => {
  installPeerHook();
  db = await freshDatabase();
  tenant = await createTenant(db.sql, { slug: "obs-metrics", name: "Metrics" });
  await publishDefinitions(db.sql, [describeDefinition(approve)], "test");
});

afterAll(async () => {
  release();
  await worker?.stop(500);
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await db.drop();
});

/** The handler behind a real server on every interface; returns its port. */
async function serve(token: string | undefined): Promise<number> {
  const handle = createMetricsHandler({ sql: () => db.sql, token });
  const server = http.createServer(async (req, res) => {
    const response = await handle(new Request(`http://x${req.url}`, { headers: req.headers as Record<string, string> }));
    res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
    res.end(await response.text());
  });
  await new Promise<void>((resolve) => server.listen(0, "0.0.0.0", resolve));
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

let openPort: number;
async function scrape(): Promise<string> {
  openPort ??= await serve(undefined);
  const response = await fetch(`http://127.0.0.1:${openPort}/api/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

const live = (text: string, status: string) => sampleValue(text, "runifold_runs", { status, workflow: WORKFLOW });

describe("GET /api/metrics: the store's families", () => {
  it("lists every family, with a 0 series for each published workflow and tenant before anything runs", async () => {
    const text = await scrape();
    expect(familyTypes(text)).toMatchObject({
      runifold_runs: "gauge",
      runifold_claimable_runs: "gauge",
      runifold_oldest_claimable_age_seconds: "gauge",
      runifold_input_required_tasks: "gauge",
      runifold_oldest_unanswered_input_age_seconds: "gauge",
      runifold_open_approvals: "gauge",
      runifold_oldest_open_approval_age_seconds: "gauge",
      runifold_store_up: "gauge",
      runifold_store_writable: "gauge",
      runifold_mcp_requests_total: "counter",
      runifold_mcp_request_duration_seconds: "histogram",
      process_cpu_seconds_total: "counter",
    });
    for (const status of ["queued", "leased", "sleeping", "waiting_signal", "waiting_input"]) expect(live(text, status)).toBe(0);
    expect(sampleValue(text, "runifold_claimable_runs", { workflow: WORKFLOW })).toBe(0);
    expect(sampleValue(text, "runifold_input_required_tasks", { tenant: tenant.slug })).toBe(0);
    expect(sampleValue(text, "runifold_open_approvals", { tenant: tenant.slug })).toBe(0);
    expect(sampleValue(text, "runifold_store_up")).toBe(1);
    expect(sampleValue(text, "runifold_store_writable")).toBe(1);
    // Bounded labels: no series is labelled with a run or task ID.
    expect(text).not.toMatch(/(run|task)_?id="/i);
  });

  it("follows a run: created (queued, claimable), claimed (leased), waiting for input, finished", async () => {
    const run = await createRun(db.sql, { tenantId: tenant.id, workflowName: "obs-approve", workflowVersion: 1, input: {} });

    const queued = await waitFor(
      scrape,
      (text) => (sampleValue(text, "runifold_oldest_claimable_age_seconds", { workflow: WORKFLOW }) ?? 0) > 0.05,
      { describe: "the queued run to be claimable for a while" },
    );
    expect(live(queued, "queued")).toBe(1);
    expect(sampleValue(queued, "runifold_claimable_runs", { workflow: WORKFLOW })).toBe(1);

    worker = createWorker({ sql: db.sql, registry: createRegistry([approve]), logger: silentLogger, pollMs: 50, leaseMs: 5_000 });
    await worker.start();
    await waitForRunStatus(db.sql, run.id, "leased");
    const claimed = await scrape();
    expect(live(claimed, "leased")).toBe(1);
    expect(live(claimed, "queued")).toBe(0);
    // A live lease is not claimable (its claimable_at is the lease's expiry).
    expect(sampleValue(claimed, "runifold_claimable_runs", { workflow: WORKFLOW })).toBe(0);
    expect(sampleValue(claimed, "runifold_oldest_claimable_age_seconds", { workflow: WORKFLOW })).toBe(0);

    release();
    await waitForRunStatus(db.sql, run.id, "waiting_input");
    const waiting = await waitFor(
      scrape,
      (text) => (sampleValue(text, "runifold_oldest_unanswered_input_age_seconds", { tenant: tenant.slug }) ?? 0) > 0.05,
      { describe: "the input request to be unanswered for a while" },
    );
    expect(live(waiting, "waiting_input")).toBe(1);
    expect(live(waiting, "leased")).toBe(0);
    expect(sampleValue(waiting, "runifold_input_required_tasks", { tenant: tenant.slug })).toBe(1);

    await provideInput(db.sql, {
      runId: run.id,
      responses: { approval: { action: "accept", content: { ok: true } } },
      actor: "test",
    });
    await waitForRunStatus(db.sql, run.id, "completed");
    const done = await scrape();
    for (const status of ["queued", "leased", "waiting_input"]) expect(live(done, status)).toBe(0);
    expect(sampleValue(done, "runifold_input_required_tasks", { tenant: tenant.slug })).toBe(0);
    expect(sampleValue(done, "runifold_oldest_unanswered_input_age_seconds", { tenant: tenant.slug })).toBe(0);
  });
});

describe("GET /api/metrics: who may scrape", () => {
  /** A request from a remote peer: over the LAN for real when this machine has one, else as the hook records one. */
  async function fromRemote(port: number, token: string | undefined, headers: Record<string, string> = {}): Promise<number> {
    if (lan) return (await fetch(`http://${lan}:${port}/api/metrics`, { headers })).status;
    const handle = createMetricsHandler({ sql: () => db.sql, token });
    const request = new Request("http://x/api/metrics", {
      headers: { ...headers, "x-runifold-peer": "192.0.2.10", "x-runifold-local": "10.0.0.2" },
    });
    return (await handle(request)).status;
  }

  it("without RUNIFOLD_METRICS_TOKEN: loopback only; a remote peer, a relayed request or an unknown peer gets 403", async () => {
    const port = await serve(undefined);
    expect((await fetch(`http://127.0.0.1:${port}/api/metrics`)).status).toBe(200);
    expect(await fromRemote(port, undefined)).toBe(403);
    // A proxy on this host relaying an outside client, and a client pretending to be loopback.
    expect((await fetch(`http://127.0.0.1:${port}/api/metrics`, { headers: { "x-forwarded-for": "203.0.113.7" } })).status).toBe(
      403,
    );
    expect(await fromRemote(port, undefined, { "x-forwarded-for": "127.0.0.1", "x-runifold-peer": "127.0.0.1" })).toBe(403);
    // A request whose connection nobody recorded (not through a hooked server) is never loopback.
    const handle = createMetricsHandler({ sql: () => db.sql, token: undefined });
    expect((await handle(new Request("http://127.0.0.1/api/metrics"))).status).toBe(403);
  });

  it("with RUNIFOLD_METRICS_TOKEN: the Bearer token is required from everywhere, loopback included", async () => {
    const port = await serve(TOKEN);
    const loopback = (headers: Record<string, string> = {}) => fetch(`http://127.0.0.1:${port}/api/metrics`, { headers });
    const refused = await loopback();
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer /);
    expect((await loopback({ authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    expect((await loopback({ authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    expect(await fromRemote(port, TOKEN)).toBe(401);
    expect(await fromRemote(port, TOKEN, { authorization: `Bearer ${TOKEN}` })).toBe(200);
  });
});
