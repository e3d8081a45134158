import { cancelRun, createRun } from "@runifold/sdk";
import { jsonParam } from "@runifold/store";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Operator } from "../../lib/auth";
import { FAILURE_PREVIEW_CHARS } from "../../lib/tasks";
import { presentTaskDetail, presentTaskEvents } from "../../lib/ui/presenters/task-detail";
import { presentTaskPage } from "../../lib/ui/presenters/task-list";
import { freshDatabase } from "../helpers/db";
import { makeOperator, makeTenant } from "./helpers";

/**
 * Issue 34's console friction, against real Postgres: the task history names the operators who acted
 * (resolved in the history query, never to another tenant's people), and the task list carries a
 * failed task's stored cause, cut short, from the same statement.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let tenantA: { id: string };
let tenantB: { id: string };
let named: { id: string; email: string };
let unnamed: { id: string; email: string };
let foreigner: { id: string; email: string };
let member: Operator;
let memberB: Operator;

const newRun = async (tenantId: string) =>
  (await createRun(sql, { tenantId, workflowName: "approve-expense", workflowVersion: 1, input: {} })).id;

async function addEvent(runId: string, type: string, payload: Record<string, unknown>) {
  await sql.unsafe("INSERT INTO run_events (run_id, type, payload) VALUES ($1, $2, $3::text::jsonb)", [
    runId,
    type,
    jsonParam(payload),
  ]);
}

/** The history lines of a task as `operator` sees them, oldest first, but the engine's `created`: [summary, raw actor label]. */
async function history(operator: Operator, taskId: string) {
  const detail = await presentTaskDetail(sql, operator, taskId);
  const events = (detail?.events ?? []).filter((event) => event.type !== "created");
  return events.map((event) => [event.summary, event.actor ?? null]).reverse();
}

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  tenantA = await makeTenant(sql, "actors-a");
  tenantB = await makeTenant(sql, "actors-b");
  named = await makeOperator(sql, "operator", [tenantA.id]);
  await sql`UPDATE operators SET name = 'Ada Lovelace' WHERE id = ${named.id}`;
  unnamed = await makeOperator(sql, "operator", [tenantA.id]);
  foreigner = await makeOperator(sql, "operator", [tenantB.id]);
  await sql`UPDATE operators SET name = 'Someone Elsewhere' WHERE id = ${foreigner.id}`;
  member = { id: named.id, email: named.email, name: "Ada Lovelace", role: "operator", tenantIds: [tenantA.id] };
  memberB = { id: foreigner.id, email: foreigner.email, name: "", role: "operator", tenantIds: [tenantB.id] };
});
afterAll(async () => {
  await db.drop();
});

describe("the task history names who acted", () => {
  it("resolves operators to their name (else email), makes keys and CLI users readable, keeps the raw label", async () => {
    const runId = await newRun(tenantA.id);
    await addEvent(runId, "input_answered", { key: "decision", by: `operator:${named.id}` });
    await addEvent(runId, "input_answered", { key: "second", by: `operator:${unnamed.id}` });
    await addEvent(runId, "input_answered", { key: "third", by: "key:k_123" });
    await addEvent(runId, "rerun_as", { taskId: "t-1", actor: "cli:ops@host-1" });
    await addEvent(runId, "input_answered", { key: "fourth", by: "timeout" });
    await cancelRun(sql, { runId, reason: "not needed", actor: `operator:${unnamed.id}` });
    expect(await history(member, runId)).toEqual([
      ["input `decision` answered by Ada Lovelace", `operator:${named.id}`],
      [`input \`second\` answered by ${unnamed.email}`, `operator:${unnamed.id}`],
      ["input `third` answered by API key k_123", "key:k_123"],
      ["rerun as t-1 (ops@host-1 (CLI))", "cli:ops@host-1"],
      ["input `fourth` answered by timeout", "timeout"],
      [`cancelled: not needed (${unnamed.email})`, `operator:${unnamed.id}`],
    ]);
  });

  it("never resolves an operator outside the run's tenant, a malformed label or a non-actor event", async () => {
    const runId = await newRun(tenantA.id);
    await addEvent(runId, "input_answered", { key: "x", by: `operator:${foreigner.id}` });
    await addEvent(runId, "input_answered", { key: "y", by: "operator:not-a-uuid" });
    await addEvent(runId, "log", { message: "hello", actor: `operator:${named.id}` });
    const lines = await history(member, runId);
    expect(lines[0]).toEqual([`input \`x\` answered by operator:${foreigner.id}`, `operator:${foreigner.id}`]);
    expect(lines[1]).toEqual(["input `y` answered by operator:not-a-uuid", "operator:not-a-uuid"]);
    expect(lines[2]?.[0]).not.toContain("Ada Lovelace");
    expect(JSON.stringify(lines)).not.toContain("Someone Elsewhere");
    expect(JSON.stringify(lines)).not.toContain(foreigner.email);
  });

  it("resolves on older pages too, and shows another tenant's operator nothing of the task", async () => {
    const runId = await newRun(tenantA.id);
    await addEvent(runId, "input_answered", { key: "old", by: `operator:${named.id}` });
    for (let n = 0; n < 25; n += 1) await addEvent(runId, "log", { message: `line ${n}` });
    const detail = await presentTaskDetail(sql, member, runId);
    expect(detail?.olderThan).not.toBeNull();
    const older = await presentTaskEvents(sql, member, runId, detail?.olderThan as number);
    expect(older.events.find((event) => event.type === "input_answered")?.summary).toBe("input `old` answered by Ada Lovelace");
    expect(await presentTaskDetail(sql, memberB, runId)).toBeUndefined();
    expect((await presentTaskEvents(sql, memberB, runId, Number.MAX_SAFE_INTEGER)).events).toEqual([]);
  });
});

describe("the task list shows a failed task's cause", () => {
  it("carries the stored cause of failed rows only, its message cut to the preview length", async () => {
    const tenant = await makeTenant(sql, "causes");
    const operator: Operator = { id: named.id, email: named.email, name: "", role: "operator", tenantIds: [tenant.id] };
    const failedId = await newRun(tenant.id);
    const longMessage = `boom ${"x".repeat(500)}`;
    await sql.unsafe(
      `UPDATE runs SET status = 'failed', finished_at = now(), claimable_at = NULL,
         failure = jsonb_build_object('code', 'step_failed', 'message', $2::text, 'step', 'charge', 'attempt', 1) WHERE id = $1`,
      [failedId, longMessage],
    );
    // A cancelled run that had once stored a cause (a retry's) is not shown as failed.
    const cancelledId = await newRun(tenant.id);
    await sql.unsafe(
      `UPDATE runs SET status = 'cancelled', finished_at = now(), claimable_at = NULL,
         failure = jsonb_build_object('code', 'workflow_error', 'message', 'old', 'attempt', 1) WHERE id = $1`,
      [cancelledId],
    );
    const pendingId = await newRun(tenant.id);
    const page = await presentTaskPage(sql, operator, new URLSearchParams());
    const byId = new Map(page.items.map((item) => [item.id, item.failureCause]));
    expect(byId.get(failedId)).toEqual({ code: "step_failed", message: longMessage.slice(0, FAILURE_PREVIEW_CHARS) });
    expect(byId.get(cancelledId)).toBeNull();
    expect(byId.get(pendingId)).toBeNull();
    const filtered = await presentTaskPage(sql, operator, new URLSearchParams({ status: "failed" }));
    expect(filtered.items.map((item) => [item.id, item.failureCause?.code])).toEqual([[failedId, "step_failed"]]);
  });
});
