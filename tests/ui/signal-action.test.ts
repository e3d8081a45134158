import { randomUUID } from "node:crypto";
import { createRun } from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signalTaskAction } from "../../lib/ui/actions/signal-action";
import { presentTaskDetail } from "../../lib/ui/presenters/task-detail";
import { freshDatabase } from "../helpers/db";
import { contextFor, makeOperator, makeTenant } from "./helpers";

/**
 * The console's "Send a signal" (issue 34, review F25) against real Postgres: the operator's scope
 * decides what it may signal, the signal wakes a run waiting for it, and the task history and the
 * audit trail name who sent it.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let tenantA: { id: string };
let tenantB: { id: string };
let member: { id: string; email: string };

async function runWaitingFor(tenantId: string, name: string): Promise<string> {
  const run = await createRun(sql, { tenantId, workflowName: "deploy", workflowVersion: 1, input: {} });
  await sql.unsafe(
    `UPDATE runs SET status = 'waiting_signal', claimable_at = NULL,
       wait_detail = jsonb_build_object('signal', jsonb_build_object('name', $2::text, 'since', now())) WHERE id = $1`,
    [run.id, name],
  );
  return run.id;
}

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  tenantA = await makeTenant(sql, "signals-a");
  tenantB = await makeTenant(sql, "signals-b");
  member = await makeOperator(sql, "operator", [tenantA.id]);
  await sql`UPDATE operators SET name = 'Grace Hopper' WHERE id = ${member.id}`;
});
afterAll(async () => {
  await db?.drop();
});

describe("send a signal from the console", () => {
  it("wakes the run waiting for it, stores the payload, and names the sender in the history and the audit", async () => {
    const taskId = await runWaitingFor(tenantA.id, "window-open");
    const sent = await signalTaskAction(contextFor(sql, member.id), {
      taskId,
      name: "window-open",
      payload: '{"approved": true, "by": "change board"}',
    });
    expect(sent).toEqual({ name: "window-open" });
    const [run] = await sql`SELECT status FROM runs WHERE id = ${taskId}`;
    expect(run?.status).toBe("queued");
    const [signal] = await sql`SELECT name, payload FROM run_signals WHERE run_id = ${taskId}`;
    expect(signal).toMatchObject({ name: "window-open", payload: { approved: true, by: "change board" } });
    const detail = await presentTaskDetail(
      sql,
      { id: member.id, email: member.email, name: "Grace Hopper", role: "operator", tenantIds: [tenantA.id] },
      taskId,
    );
    const line = detail?.events.find((event) => event.type === "signal_sent");
    expect(line).toMatchObject({ summary: "signal `window-open` sent by Grace Hopper", actor: `operator:${member.id}` });
    const audits = await sql`SELECT fields FROM audit_events WHERE action = 'task.signal' AND tenant_id = ${tenantA.id}`;
    expect(audits.map((row) => row.fields)).toEqual([expect.objectContaining({ taskId, name: "window-open" })]);
  });

  it("an empty payload is null; a live task not yet waiting keeps the signal for later", async () => {
    const taskId = (await createRun(sql, { tenantId: tenantA.id, workflowName: "deploy", workflowVersion: 1, input: {} })).id;
    await signalTaskAction(contextFor(sql, member.id), { taskId, name: "later", payload: "  " });
    const [signal] = await sql`SELECT payload FROM run_signals WHERE run_id = ${taskId}`;
    expect(signal?.payload).toBeNull();
  });

  it("refuses another tenant's task as not found, an ended one as a conflict, bad names and payloads clearly", async () => {
    const ctx = contextFor(sql, member.id);
    const foreign = await runWaitingFor(tenantB.id, "go");
    await expect(signalTaskAction(ctx, { taskId: foreign, name: "go", payload: "" })).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(signalTaskAction(ctx, { taskId: randomUUID(), name: "go", payload: "" })).rejects.toMatchObject({
      code: "not_found",
    });
    expect(await sql`SELECT 1 FROM run_signals WHERE run_id = ${foreign}`).toHaveLength(0);
    const mine = await runWaitingFor(tenantA.id, "go");
    await expect(signalTaskAction(ctx, { taskId: mine, name: "go", payload: "{not json" })).rejects.toMatchObject({
      code: "bad_request",
      message: expect.stringContaining("not JSON"),
    });
    await expect(signalTaskAction(ctx, { taskId: mine, name: "has space", payload: "" })).rejects.toMatchObject({
      code: "bad_request",
    });
    await sql`UPDATE runs SET status = 'cancelled', finished_at = now(), wait_detail = NULL WHERE id = ${mine}`;
    await expect(signalTaskAction(ctx, { taskId: mine, name: "go", payload: "" })).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringContaining("cancelled"),
    });
    // A cross-site POST is refused before anything is read.
    await expect(
      signalTaskAction(contextFor(sql, member.id, { "sec-fetch-site": "cross-site" }), { taskId: mine, name: "go", payload: "" }),
    ).rejects.toMatchObject({ code: "forbidden" });
  });
});
