import { createRun } from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleTaskDetail } from "../../lib/ui/handlers/task-handlers";
import { presentTaskDetail } from "../../lib/ui/presenters/task-detail";
import { STEP_PREVIEW_CHARS } from "../../lib/ui/presenters/task-steps";
import { freshDatabase } from "../helpers/db";
import { contextFor, makeOperator, makeTenant } from "./helpers";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let tenantA: { id: string };
let tenantB: { id: string };
let member: { id: string; email: string };
let outsider: { id: string; email: string };

const BIG = { rows: Array.from({ length: 400 }, (_, i) => ({ i, label: `row ${i}` })) };

async function step(runId: string, key: string, output: unknown, seq: number | null) {
  await sql.unsafe("INSERT INTO run_steps (run_id, key, output, seq) VALUES ($1, $2, $3::text::jsonb, $4)", [
    runId,
    key,
    JSON.stringify(output),
    seq,
  ]);
}

const asMember = () => ({ id: member.id, email: member.email, name: "m", role: "operator" as const, tenantIds: [tenantA.id] });

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  tenantA = await makeTenant(sql, "steps-a");
  tenantB = await makeTenant(sql, "steps-b");
  member = await makeOperator(sql, "operator", [tenantA.id]);
  outsider = await makeOperator(sql, "operator", [tenantB.id]);
});
afterAll(async () => {
  await db.drop();
});

describe("step detail on the task page", () => {
  it("lists steps in call order with status, executions, time and a capped output; 'show all' reads the rest", async () => {
    const run = await createRun(sql, { tenantId: tenantA.id, workflowName: "w", workflowVersion: 1, input: {} });
    await step(run.id, "section-1", { title: "Section 1", rows: 8 }, 0);
    await step(
      run.id,
      "retry:section-2",
      { failures: 2, retryAt: new Date().toISOString(), lastError: { name: "Error", message: "x" } },
      null,
    );
    await step(run.id, "section-2", BIG, 1);
    await step(run.id, "sleep:settle", { wakeAt: "2026-01-01T00:00:00.000Z" }, 2);
    await step(run.id, "deadline:signal:go#1", 123, null);
    await step(run.id, "uuid:3", "0b7e1c9a-3c1e-4f43-9a55-2f1f0e0d9c01", 3);
    await step(run.id, "repeat:section-1#2", { title: "Section 1 again" }, 4);
    await step(
      run.id,
      "retry:flaky",
      { failures: 1, retryAt: "2099-01-01T00:00:00.000Z", lastError: { name: "TypeError", message: "nope" } },
      null,
    );

    const detail = await presentTaskDetail(sql, asMember(), run.id);
    const steps = detail?.steps ?? [];
    expect(steps.map((s) => [s.key, s.kind, s.status, s.attempts])).toEqual([
      ["section-1", "step", "completed", 1],
      ["section-2", "step", "completed", 3],
      ["sleep:settle", "sleep", "completed", null],
      ["uuid:3", "uuid", "completed", null],
      ["repeat:section-1#2", "step", "completed", 1],
      ["flaky", "step", "retrying", 1],
    ]);
    expect(steps[0]?.output).toEqual({
      preview: expect.stringContaining('"title": "Section 1"'),
      truncated: false,
      bytes: expect.any(Number),
    });
    expect(steps[0]?.at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const big = steps[1]?.output;
    expect(big?.truncated).toBe(true);
    expect(big?.preview).toHaveLength(STEP_PREVIEW_CHARS);
    expect(big?.bytes).toBeGreaterThan(STEP_PREVIEW_CHARS);
    expect(steps[5]).toMatchObject({
      lastError: { name: "TypeError", message: "nope" },
      retryAt: "2099-01-01T00:00:00.000Z",
      output: null,
    });

    const full = await handleTaskDetail(
      contextFor(sql, member.id),
      new Request(`http://console.test/api/ui/tasks/${run.id}?step=section-2`),
      run.id,
    );
    expect(full.status).toBe(200);
    const body = (await full.json()) as { key: string; output: string };
    expect(body.key).toBe("section-2");
    expect(JSON.parse(body.output)).toEqual(BIG);
    expect(body.output.startsWith(big?.preview ?? "?")).toBe(true);
  });

  it("shows the stored failure cause on the step that failed, retry state or not", async () => {
    const run = await createRun(sql, { tenantId: tenantA.id, workflowName: "w", workflowVersion: 1, input: {} });
    await step(run.id, "fetch", { ok: true }, 0);
    await step(
      run.id,
      "retry:charge",
      { failures: 2, retryAt: new Date().toISOString(), lastError: { name: "Error", message: "502" } },
      null,
    );
    const failure = {
      code: "step_failed",
      message: "card declined",
      name: "PaymentError",
      step: "charge",
      stepAttempt: 3,
      attempt: 2,
    };
    await sql.unsafe(
      `UPDATE runs SET status = 'failed', failure = $2::text::jsonb, claimable_at = NULL, finished_at = now() WHERE id = $1`,
      [run.id, JSON.stringify(failure)],
    );
    const steps = (await presentTaskDetail(sql, asMember(), run.id))?.steps ?? [];
    expect(steps.map((s) => [s.key, s.status, s.attempts])).toEqual([
      ["fetch", "completed", 1],
      ["charge", "failed", 3],
    ]);
    expect(steps[1]).toMatchObject({ lastError: { name: "PaymentError", message: "card declined" }, retryAt: null });

    // A non-retryable failure on the first execution leaves no retry state: the cause alone names the step.
    const first = await createRun(sql, { tenantId: tenantA.id, workflowName: "w", workflowVersion: 1, input: {} });
    await sql.unsafe(
      `UPDATE runs SET status = 'failed', failure = $2::text::jsonb, claimable_at = NULL, finished_at = now() WHERE id = $1`,
      [first.id, JSON.stringify({ ...failure, step: "validate", stepAttempt: 1 })],
    );
    const only = (await presentTaskDetail(sql, asMember(), first.id))?.steps ?? [];
    expect(only).toEqual([expect.objectContaining({ key: "validate", status: "failed", attempts: 1, output: null })]);
  });

  it("answers a step of another tenant's task like a missing one", async () => {
    const run = await createRun(sql, { tenantId: tenantA.id, workflowName: "w", workflowVersion: 1, input: {} });
    await step(run.id, "secret", { token: "s3cret" }, 0);
    const url = `http://console.test/api/ui/tasks/${run.id}?step=secret`;
    const foreign = await handleTaskDetail(contextFor(sql, outsider.id), new Request(url), run.id);
    const missing = await handleTaskDetail(contextFor(sql, member.id), new Request(`${url}-nope`), run.id);
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(await foreign.json()).toEqual(await missing.json());
  });
});
