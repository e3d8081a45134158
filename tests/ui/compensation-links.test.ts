import { cancelRun, createRun } from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Operator } from "../../lib/auth";
import { presentTaskDetail } from "../../lib/ui/presenters/task-detail";
import { freshDatabase } from "../helpers/db";
import { makeOperator, makeTenant } from "./helpers";

/**
 * The task page links a cancelled run to the run that compensates it (onFailure, migration 0041) and
 * back, from the store's own records, never across tenants; a continue-as-new reads as one line.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let member: Operator;
let outsider: Operator;
let tenantId: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  const tenant = await makeTenant(sql, "compensations");
  const other = await makeTenant(sql, "compensations-other");
  tenantId = tenant.id;
  const a = await makeOperator(sql, "operator", [tenant.id]);
  const b = await makeOperator(sql, "operator", [other.id]);
  member = { id: a.id, email: a.email, name: "", role: "operator", tenantIds: [tenant.id] };
  outsider = { id: b.id, email: b.email, name: "", role: "operator", tenantIds: [other.id] };
});
afterAll(async () => {
  await db?.drop();
});

describe("compensation links on the task page", () => {
  it("links a cancelled run with a hook to its compensation run, both ways, for its own tenant only", async () => {
    const run = await createRun(sql, { tenantId, workflowName: "deploy", workflowVersion: 1, input: { service: "api" } });
    await sql`UPDATE runs SET on_failure = true WHERE id = ${run.id}`;
    await cancelRun(sql, { runId: run.id, reason: "stop" });
    const [compensation] = await sql<{ id: string }[]>`SELECT id FROM runs WHERE compensates_run_id = ${run.id}`;
    expect(compensation).toBeDefined();
    const cancelled = await presentTaskDetail(sql, member, run.id);
    expect(cancelled).toMatchObject({ compensatesTaskId: null, compensationTaskIds: [compensation?.id] });
    const compensating = await presentTaskDetail(sql, member, compensation?.id as string);
    expect(compensating).toMatchObject({ compensatesTaskId: run.id, compensationTaskIds: [] });
    expect(await presentTaskDetail(sql, outsider, run.id)).toBeUndefined();

    // A run without a hook has no compensation, and a forged log line naming another run links nothing.
    const plain = await createRun(sql, { tenantId, workflowName: "deploy", workflowVersion: 1, input: {} });
    await sql.unsafe(
      `INSERT INTO run_events (run_id, type, payload) VALUES ($1, 'log', jsonb_build_object('message', 'x', 'data', jsonb_build_object('compensationRunId', $2::text)))`,
      [plain.id, compensation?.id as string],
    );
    await cancelRun(sql, { runId: plain.id });
    expect(await presentTaskDetail(sql, member, plain.id)).toMatchObject({ compensatesTaskId: null, compensationTaskIds: [] });
  });

  it("writes a continue-as-new as one history line naming the generation", async () => {
    const run = await createRun(sql, { tenantId, workflowName: "deploy", workflowVersion: 1, input: {} });
    await sql.unsafe(
      `INSERT INTO run_events (run_id, type, payload) VALUES ($1, 'continued_as_new', '{"generation": 2, "removed": {"steps": 3, "inputs": 0}}')`,
      [run.id],
    );
    const detail = await presentTaskDetail(sql, member, run.id);
    expect(detail?.events.find((event) => event.type === "continued_as_new")?.summary).toBe(
      "continued as new: generation 2 begins on a fresh history",
    );
  });
});
