import { randomUUID } from "node:crypto";
import { cancelRun, createRun } from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BULK_TASK_LIMIT, searchAudit } from "../../lib/admin";
import { AppError } from "../../lib/errors";
import { bulkTaskAction } from "../../lib/ui/actions/bulk-task-actions";
import { freshDatabase } from "../helpers/db";
import { contextFor, makeOperator, makeTenant } from "./helpers";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let tenantA: { id: string };
let tenantB: { id: string };
let member: { id: string };

const newRun = async (tenantId: string) =>
  (await createRun(sql, { tenantId, workflowName: "generate-report", workflowVersion: 1, input: { n: randomUUID() } })).id;

async function finished(tenantId: string) {
  const id = await newRun(tenantId);
  await cancelRun(sql, { runId: id, tenantId });
  return id;
}

const status = async (id: string) => (await sql<{ status: string }[]>`SELECT status FROM runs WHERE id = ${id}`)[0]?.status;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  tenantA = await makeTenant(sql, "bulk-a");
  tenantB = await makeTenant(sql, "bulk-b");
  member = await makeOperator(sql, "operator", [tenantA.id]);
});
afterAll(async () => {
  await db.drop();
});

describe("bulk task actions", () => {
  it("cancels each task and answers per ID, in order, duplicates once; foreign IDs answer like unknown ones", async () => {
    const [liveA, liveA2, doneA, foreign] = [
      await newRun(tenantA.id),
      await newRun(tenantA.id),
      await finished(tenantA.id),
      await newRun(tenantB.id),
    ];
    const unknown = randomUUID();
    const results = await bulkTaskAction(contextFor(sql, member.id), {
      action: "cancel",
      taskIds: [liveA, doneA, foreign, unknown, "garbage", liveA, liveA2],
    });
    expect(results).toEqual([
      { taskId: liveA, outcome: "cancelled" },
      { taskId: doneA, outcome: "already_finished" },
      { taskId: foreign, outcome: "not_found" },
      { taskId: unknown, outcome: "not_found" },
      { taskId: "garbage", outcome: "not_found" },
      { taskId: liveA2, outcome: "cancelled" },
    ]);
    expect(await status(liveA)).toBe("cancelled");
    expect(await status(liveA2)).toBe("cancelled");
    // The other tenant's task is untouched.
    expect(await status(foreign)).toBe("queued");
    const audit = await searchAudit({ sql }, { scope: [tenantA.id], action: "task.cancel" });
    expect(audit.entries.map((e) => e.fields.taskId).sort()).toEqual([liveA, liveA2, doneA].sort());
    expect(audit.entries.every((e) => e.fields.bulk === true)).toBe(true);
  });

  it("reruns finished tasks, skips live ones, and answers foreign IDs as not found", async () => {
    const [doneA, liveA, foreignDone] = [await finished(tenantA.id), await newRun(tenantA.id), await finished(tenantB.id)];
    const results = await bulkTaskAction(contextFor(sql, member.id), { action: "rerun", taskIds: [doneA, liveA, foreignDone] });
    expect(results).toEqual([
      { taskId: doneA, outcome: "rerun", rerunId: expect.any(String) },
      { taskId: liveA, outcome: "not_finished", status: "queued" },
      { taskId: foreignDone, outcome: "not_found" },
    ]);
    const rerunId = (results[0] as { rerunId: string }).rerunId;
    const [rerun] = await sql`SELECT tenant_id, input FROM runs WHERE id = ${rerunId}`;
    const [original] = await sql`SELECT input FROM runs WHERE id = ${doneA}`;
    expect(rerun).toEqual({ tenant_id: tenantA.id, input: original?.input });
    expect(await sql`SELECT 1 FROM run_events WHERE run_id = ${foreignDone} AND type = 'rerun_as'`).toHaveLength(0);
  });

  it(`refuses more than ${BULK_TASK_LIMIT} IDs (or none) before touching anything`, async () => {
    const live = await newRun(tenantA.id);
    const tooMany = [live, ...Array.from({ length: BULK_TASK_LIMIT }, () => randomUUID())];
    for (const taskIds of [tooMany, []]) {
      const error = await bulkTaskAction(contextFor(sql, member.id), { action: "cancel", taskIds }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe("bad_request");
    }
    expect(await status(live)).toBe("queued");
    // Exactly the limit is accepted.
    const atLimit = await bulkTaskAction(contextFor(sql, member.id), {
      action: "cancel",
      taskIds: tooMany.slice(0, BULK_TASK_LIMIT),
    });
    expect(atLimit).toHaveLength(BULK_TASK_LIMIT);
    expect(await status(live)).toBe("cancelled");
  });

  it("requires a session and the same origin, like every console action", async () => {
    const nobody = await bulkTaskAction(contextFor(sql, null), { action: "cancel", taskIds: [randomUUID()] }).catch((e) => e);
    expect((nobody as AppError).code).toBe("unauthenticated");
    const crossSite = await bulkTaskAction(contextFor(sql, member.id, { "sec-fetch-site": "cross-site" }), {
      action: "cancel",
      taskIds: [randomUUID()],
    }).catch((e) => e);
    expect((crossSite as AppError).code).toBe("forbidden");
  });
});
