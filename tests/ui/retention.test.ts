import { createHash, randomUUID } from "node:crypto";
import { createRun } from "@runifold/sdk";
import { claimRuns, finishRun } from "@runifold/sdk/testing";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertRouteRevision } from "../../db/queries/routes";
import { requireOperator } from "../../lib/auth";
import { runRetention } from "../../lib/retention";
import { handleTaskDetail } from "../../lib/ui/handlers/task-handlers";
import { presentRetention, type RetentionView, TOMBSTONE_PAGE_SIZE } from "../../lib/ui/presenters/retention";
import { presentTaskView } from "../../lib/ui/presenters/task-detail";
import { freshDatabase } from "../helpers/db";
import { seedRuns } from "../retention/seed-runs";
import { contextFor, makeOperator, makeTenant } from "./helpers";

const HOUR = 3_600_000;
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let tenantA: { id: string; slug: string };
let tenantB: { id: string; slug: string };
let opA: { id: string };
let opB: { id: string };
let admin: { id: string };
/** A run of tenant A that went through the engine (route, result), then purged. */
let aTask: string;
let aResultText: string;
let aPurged: string[];
let bPurged: string[];
let aLive: string;
let passB: string;
let passA: string;
let dryPass: string;
const missing = randomUUID();

const operatorOf = async (id: string) => requireOperator(contextFor(sql, id));

/** Every tombstone of a view, following the keyset cursors to the end. */
async function allTombstoneIds(operatorId: string): Promise<string[]> {
  const operator = await operatorOf(operatorId);
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 20; pages++) {
    const view: RetentionView = await presentRetention(sql, operator, { cursor });
    ids.push(...view.tombstones.map((t) => t.runId));
    if (!view.next) return ids;
    cursor = view.next;
  }
  throw new Error("tombstone pages never ended");
}

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  tenantA = await makeTenant(sql, "tenant-a");
  tenantB = await makeTenant(sql, "tenant-b");
  opA = await makeOperator(sql, "operator", [tenantA.id]);
  opB = await makeOperator(sql, "operator", [tenantB.id]);
  admin = await makeOperator(sql, "admin");
  const route = await insertRouteRevision(sql, {
    tenantId: tenantA.id,
    toolName: "durable_report",
    workflowName: "generate-report",
    workflowVersion: 1,
    inputSchema: { type: "object" },
    taskSupport: "optional",
  });

  // A's real run: created on its route, claimed, completed with a result.
  const run = await createRun(sql, {
    tenantId: tenantA.id,
    routeId: route.id,
    workflowName: "generate-report",
    workflowVersion: 1,
    input: { report_id: "r" },
  });
  const [lease] = await claimRuns(sql, { workerId: "test", workflowKeys: ["generate-report@1"], limit: 1, leaseMs: 60_000 });
  if (!lease || lease.id !== run.id) throw new Error("claim failed");
  const finished = await finishRun(
    sql,
    { runId: run.id, workerId: "test", attempt: lease.attempt, leaseMs: 60_000 },
    {
      status: "completed",
      result: { content: [{ type: "text", text: "report r done" }] },
    },
  );
  if (!finished) throw new Error("finish failed");
  aTask = run.id;
  aResultText = (await sql`SELECT payload::text AS text FROM run_events WHERE run_id = ${aTask} AND type = 'completed'`)[0]?.text;
  aLive = (await createRun(sql, { tenantId: tenantA.id, workflowName: "generate-report", workflowVersion: 1, input: {} })).id;

  // Pass 1 purges only B (A keeps finished runs for 10 days); pass 2, after A's retention drops
  // to an hour, only A. Enough of A's for two tombstone pages.
  await sql`UPDATE tenants SET retention_ms = ${10 * 24 * HOUR} WHERE id = ${tenantA.id}`;
  await sql`UPDATE tenants SET retention_ms = ${HOUR} WHERE id = ${tenantB.id}`;
  const aSeeded = await seedRuns(sql, { tenantId: tenantA.id, count: TOMBSTONE_PAGE_SIZE + 7, finishedAgoMs: 2 * HOUR });
  bPurged = await seedRuns(sql, { tenantId: tenantB.id, count: 9, finishedAgoMs: 2 * HOUR });
  const first = await runRetention(sql, { holder: "test:pass-b", batchSize: 4 });
  if (first.status !== "completed" || first.purged !== 9) throw new Error(`pass B: ${JSON.stringify(first)}`);
  passB = first.id;

  await sql`UPDATE tenants SET retention_ms = ${HOUR} WHERE id = ${tenantA.id}`;
  // The engine run finished just now: measure A's retention from three hours ahead.
  const second = await runRetention(sql, { holder: "test:pass-a", batchSize: 10, now: new Date(Date.now() + 3 * HOUR) });
  aPurged = [...aSeeded, aTask];
  if (second.status !== "completed" || second.purged !== aPurged.length) throw new Error(`pass A: ${JSON.stringify(second)}`);
  passA = second.id;

  await seedRuns(sql, { tenantId: tenantB.id, count: 3, finishedAgoMs: 2 * HOUR });
  const dry = await runRetention(sql, { holder: "test:dry", dryRun: true });
  if (dry.status !== "completed") throw new Error("dry run failed");
  dryPass = dry.id;
});
afterAll(async () => {
  await db.drop();
});

describe("retention page (presentRetention)", () => {
  it("shows an operator its tenants' settings and tombstones only, all of them across keyset pages", async () => {
    const viewA = await presentRetention(sql, await operatorOf(opA.id));
    expect(viewA.scope).toBe("member");
    expect(viewA.tenants).toEqual([
      {
        id: tenantA.id,
        slug: "tenant-a",
        name: "TENANT-A",
        retentionMs: HOUR,
        retention: "1 h",
        maxTtlMs: 86_400_000,
        maxTtl: "24 h",
      },
    ]);
    expect(viewA.tombstones).toHaveLength(TOMBSTONE_PAGE_SIZE);
    expect(viewA.next).not.toBeNull();

    const idsA = await allTombstoneIds(opA.id);
    expect(new Set(idsA).size).toBe(idsA.length);
    expect([...idsA].sort()).toEqual([...aPurged].sort());
    const idsB = await allTombstoneIds(opB.id);
    expect([...idsB].sort()).toEqual([...bPurged].sort());
    const idsAdmin = await allTombstoneIds(admin.id);
    expect([...idsAdmin].sort()).toEqual([...aPurged, ...bPurged].sort());
  });

  it("orders tombstones newest purge first with the run ID as tiebreaker, and survives a bad cursor", async () => {
    const operator = await operatorOf(admin.id);
    const first = await presentRetention(sql, operator);
    const second = await presentRetention(sql, operator, { cursor: first.next ?? undefined });
    const rows = [...first.tombstones, ...second.tombstones];
    const key = (t: { purgedAt: string; runId: string }) => `${t.purgedAt}|${t.runId}`;
    expect(rows.map(key)).toEqual(rows.map(key).sort().reverse());
    expect(first.badCursor).toBe(false);

    const bad = await presentRetention(sql, operator, { cursor: "not-a-cursor" });
    expect(bad.badCursor).toBe(true);
    expect(bad.tombstones.map((t) => t.runId)).toEqual(first.tombstones.map((t) => t.runId));
  });

  it("counts each cleaner run's purges for the operator's tenants only", async () => {
    const purgedBy = (view: RetentionView) => Object.fromEntries(view.runs.map((r) => [r.id, r.purged]));
    const viewA = await presentRetention(sql, await operatorOf(opA.id));
    const viewB = await presentRetention(sql, await operatorOf(opB.id));
    const viewAdmin = await presentRetention(sql, await operatorOf(admin.id));
    expect(purgedBy(viewA)).toEqual({ [dryPass]: null, [passA]: aPurged.length, [passB]: 0 });
    expect(purgedBy(viewB)).toEqual({ [dryPass]: null, [passA]: 0, [passB]: bPurged.length });
    expect(purgedBy(viewAdmin)).toEqual({ [dryPass]: 3, [passA]: aPurged.length, [passB]: bPurged.length });
    // The pass itself is shared: newest first, with its batches and duration.
    expect(viewA.runs.map((r) => r.id)).toEqual([dryPass, passA, passB]);
    expect(viewA.runs[2]).toMatchObject({ status: "completed", dryRun: false, batches: 3, holder: "test:pass-b" });
    expect(viewA.runs[2]?.duration).toMatch(/^\d+(\.\d)? (ms|s)$/);
    expect(viewA.fence).toMatchObject({ epoch: 2, holder: "test:pass-a" });
  });
});

describe("a purged task's page (presentTaskView, GET /api/ui/tasks/:id)", () => {
  it("shows the tombstone to an operator of its tenant", async () => {
    const view = await presentTaskView(sql, await operatorOf(opA.id), aTask);
    expect(view).toMatchObject({
      purged: true,
      id: aTask,
      tenantId: tenantA.id,
      tenantSlug: "tenant-a",
      tool: "durable_report",
      routeRevision: 1,
      workflowKey: "generate-report@1",
      status: "completed",
      retention: "1 h",
      resultDigest: createHash("sha256").update(aResultText).digest("hex"),
    });
    if (!view?.purged) throw new Error("expected a purged view");
    expect(Date.parse(view.purgedAt)).toBeGreaterThan(Date.parse(view.finishedAt ?? ""));
    expect(await presentTaskView(sql, await operatorOf(admin.id), aTask)).toEqual(view);
    // A live task is still the ordinary detail.
    expect(await presentTaskView(sql, await operatorOf(opA.id), aLive)).toMatchObject({
      purged: false,
      id: aLive,
      status: "queued",
    });
  });

  it("is not found for another tenant's operator, exactly like a missing ID", async () => {
    const operatorB = await operatorOf(opB.id);
    expect(await presentTaskView(sql, operatorB, aTask)).toBeUndefined();
    expect(await presentTaskView(sql, operatorB, missing)).toBeUndefined();
    expect(await presentTaskView(sql, await operatorOf(opA.id), bPurged[0] as string)).toBeUndefined();

    const ctxB = contextFor(sql, opB.id);
    const foreign = await handleTaskDetail(ctxB, new Request("http://x/"), aTask);
    const absent = await handleTaskDetail(ctxB, new Request("http://x/"), missing);
    expect(foreign.status).toBe(404);
    expect(absent.status).toBe(404);
    expect(await foreign.text()).toBe(await absent.text());
    expect([...foreign.headers].sort()).toEqual([...absent.headers].sort());
  });

  it("answers the detail API with the tombstone for its tenant's operator", async () => {
    const ctxA = contextFor(sql, opA.id);
    const response = await handleTaskDetail(ctxA, new Request("http://x/"), aTask);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual(JSON.parse(JSON.stringify(await presentTaskView(sql, await operatorOf(opA.id), aTask))));
    expect(body).toMatchObject({ purged: true, status: "completed" });
    // No history is left: an older-events page is the missing-ID 404.
    const older = await handleTaskDetail(ctxA, new Request("http://x/?before=999999"), aTask);
    const olderMissing = await handleTaskDetail(ctxA, new Request("http://x/?before=999999"), missing);
    expect(older.status).toBe(404);
    expect(await older.text()).toBe(await olderMissing.text());
    const live = await (await handleTaskDetail(ctxA, new Request("http://x/"), aLive)).json();
    expect(live).toMatchObject({ purged: false, id: aLive });
  });
});
