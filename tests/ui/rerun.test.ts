import { randomUUID } from "node:crypto";
import { cancelRun, createRun } from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertRouteRevision } from "../../db/queries/routes";
import { searchAudit } from "../../lib/admin";
import { AppError } from "../../lib/errors";
import { bulkTaskAction } from "../../lib/ui/actions/bulk-task-actions";
import { rerunTaskAction } from "../../lib/ui/actions/task-actions";
import { presentTaskDetail } from "../../lib/ui/presenters/task-detail";
import { runCli } from "../cli/run-cli";
import { freshDatabase } from "../helpers/db";
import { contextFor, makeOperator, makeTenant } from "./helpers";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let tenantA: { id: string };
let tenantB: { id: string };
let routeA: { id: string };
let member: { id: string; email: string };
let admin: { id: string };

const INPUT = { report_id: "r-1", sections: 2, nested: { list: [1, "two", null] } };

/** A finished (cancelled) run of the route, created like an MCP call would, with a run timeout. */
async function finishedRun(tenantId: string, routeId: string | null, input: unknown = INPUT): Promise<string> {
  const run = await createRun(sql, {
    tenantId,
    routeId,
    workflowName: "generate-report",
    workflowVersion: 3,
    input,
    origin: "modern",
    ttlMs: 3_600_000,
    pollIntervalMs: 750,
    timeoutMs: 90_000,
    createdByKeyId: "key-1",
  });
  await cancelRun(sql, { runId: run.id, tenantId, reason: "test", actor: "test" });
  return run.id;
}

async function thrown(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("expected an AppError");
}

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  tenantA = await makeTenant(sql, "rerun-a");
  tenantB = await makeTenant(sql, "rerun-b");
  routeA = await insertRouteRevision(sql, {
    tenantId: tenantA.id,
    toolName: "durable_report",
    workflowName: "generate-report",
    workflowVersion: 3,
    inputSchema: { type: "object" },
    taskSupport: "optional",
  });
  member = await makeOperator(sql, "operator", [tenantA.id]);
  admin = await makeOperator(sql, "admin");
});
afterAll(async () => {
  await db.drop();
});

describe("rerun a finished task", () => {
  it("creates a new run of the same route revision and version with the same input, linked both ways and audited", async () => {
    const original = await finishedRun(tenantA.id, routeA.id);
    const result = await rerunTaskAction(contextFor(sql, member.id), { taskId: original });
    expect(result).toMatchObject({ taskId: original, tenantId: tenantA.id });
    expect(result.rerunId).not.toBe(original);

    const [rerun] = await sql`
      SELECT tenant_id, route_id, workflow_key, status, input, origin, created_by_key_id, ttl_ms::float8 AS ttl_ms, poll_interval_ms,
             extract(epoch FROM deadline_at - created_at) * 1000 AS timeout_ms
      FROM runs WHERE id = ${result.rerunId}`;
    expect(rerun).toMatchObject({
      tenant_id: tenantA.id,
      route_id: routeA.id,
      workflow_key: "generate-report@3",
      status: "queued",
      input: INPUT,
      origin: "operator",
      created_by_key_id: null,
      ttl_ms: 3_600_000,
      poll_interval_ms: 750,
    });
    expect(Number(rerun?.timeout_ms)).toBeCloseTo(90_000, -2);

    const operator = { id: member.id, email: "m", name: "m", role: "operator" as const, tenantIds: [tenantA.id] };
    const oldView = await presentTaskDetail(sql, operator, original);
    const newView = await presentTaskDetail(sql, operator, result.rerunId);
    expect(oldView).toMatchObject({ rerunOf: null, rerunAs: [result.rerunId] });
    expect(newView).toMatchObject({ rerunOf: original, rerunAs: [] });
    // The actor is named (this operator has no name: its email), its label kept as the line's actor.
    expect(oldView?.events[0]).toMatchObject({
      summary: `rerun as ${result.rerunId} (${member.email})`,
      actor: `operator:${member.id}`,
    });
    expect(newView?.events.map((e) => e.summary)).toContain(`rerun of ${original} (${member.email})`);
    // The original's result is still its terminal event's (a later history entry does not replace it).
    expect(oldView?.terminal).toMatchObject({ reason: "test" });

    const audit = await searchAudit({ sql }, { scope: null, action: "task.rerun" });
    expect(audit.entries.map((e) => e.fields)).toContainEqual({
      tenantId: tenantA.id,
      taskId: original,
      rerunId: result.rerunId,
    });
  });

  it("links every rerun of the same task", async () => {
    const original = await finishedRun(tenantA.id, routeA.id);
    const first = await rerunTaskAction(contextFor(sql, admin.id), { taskId: original });
    const second = await rerunTaskAction(contextFor(sql, admin.id), { taskId: original });
    const view = await presentTaskDetail(sql, { id: admin.id, email: "a", name: "a", role: "admin", tenantIds: null }, original);
    expect(view?.rerunAs).toEqual([first.rerunId, second.rerunId]);
  });

  it("refuses a task that is still running, and creates nothing", async () => {
    const live = await createRun(sql, { tenantId: tenantA.id, workflowName: "generate-report", workflowVersion: 3, input: {} });
    const before = (await sql`SELECT count(*)::int AS n FROM runs`)[0]?.n;
    const error = await thrown(rerunTaskAction(contextFor(sql, member.id), { taskId: live.id }));
    expect(error.code).toBe("conflict");
    expect(error.message).toContain("still queued");
    expect((await sql`SELECT count(*)::int AS n FROM runs`)[0]?.n).toBe(before);
    expect(await sql`SELECT 1 FROM run_events WHERE run_id = ${live.id} AND type LIKE 'rerun_%'`).toHaveLength(0);
  });

  it("refuses a task of a disabled tenant, alone or in bulk, and creates nothing", async () => {
    const tenantC = await makeTenant(sql, "rerun-c");
    const original = await finishedRun(tenantC.id, null);
    await sql`UPDATE tenants SET disabled_at = now() WHERE id = ${tenantC.id}`;
    const before = (await sql`SELECT count(*)::int AS n FROM runs`)[0]?.n;
    const error = await thrown(rerunTaskAction(contextFor(sql, admin.id), { taskId: original }));
    expect(error.code).toBe("conflict");
    expect(error.message).toContain("disabled tenant");
    expect(await bulkTaskAction(contextFor(sql, admin.id), { action: "rerun", taskIds: [original] })).toEqual([
      { taskId: original, outcome: "tenant_disabled" },
    ]);
    expect((await sql`SELECT count(*)::int AS n FROM runs`)[0]?.n).toBe(before);
    expect(await sql`SELECT 1 FROM run_events WHERE run_id = ${original} AND type LIKE 'rerun_%'`).toHaveLength(0);
    // Enabled again, the same task reruns.
    await sql`UPDATE tenants SET disabled_at = NULL WHERE id = ${tenantC.id}`;
    expect(await rerunTaskAction(contextFor(sql, admin.id), { taskId: original })).toMatchObject({ tenantId: tenantC.id });
  });

  it("answers another tenant's task exactly like an unknown or malformed ID", async () => {
    const foreign = await finishedRun(tenantB.id, null);
    const errors = await Promise.all(
      [foreign, randomUUID(), "not-a-uuid"].map((taskId) => thrown(rerunTaskAction(contextFor(sql, member.id), { taskId }))),
    );
    expect(errors.map((e) => e.code)).toEqual(["not_found", "not_found", "not_found"]);
    expect(errors[0]?.message).toBe(`No task ${foreign}.`);
    expect(await sql`SELECT 1 FROM run_events WHERE run_id = ${foreign} AND type = 'rerun_as'`).toHaveLength(0);
  });

  it("runifold tasks rerun <id> reruns from the CLI (store command); a task outside --tenant exits 4", async () => {
    const original = await finishedRun(tenantA.id, routeA.id);
    const run = await runCli(["tasks", "rerun", original, "--tenant", "rerun-a", "--json"], { DATABASE_URL: db.url });
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.lines.at(-1) ?? "{}");
    expect(printed).toMatchObject({ taskId: original, tenantId: tenantA.id });
    const [link] = await sql`SELECT payload FROM run_events WHERE run_id = ${printed.rerunId} AND type = 'rerun_of'`;
    expect(link?.payload).toMatchObject({ taskId: original, actor: expect.stringMatching(/^cli:/) });

    const wrongTenant = await runCli(["tasks", "rerun", original, "--tenant", "rerun-b"], { DATABASE_URL: db.url });
    expect(wrongTenant.code).toBe(4);
    expect(wrongTenant.stderr).toContain(`No task ${original}`);
  });
});
