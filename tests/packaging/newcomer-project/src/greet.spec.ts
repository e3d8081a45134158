import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createTestEnvironment, type TestEnvironment } from "@runifold/sdk/testing";
import { greet } from "./workflows.js";

// Copied into the newcomer's project as src/workflows.test.ts and run with
// `node --import tsx --test`: the harness on an embedded PostgreSQL (no databaseUrl).
let env: TestEnvironment | undefined;
before(async () => {
  env = await createTestEnvironment({ workflows: [greet] });
});
after(async () => env?.close());

test("the greeting waits for its question, then completes formally", async () => {
  if (!env) throw new Error("no test environment");
  const runId = await env.start(greet, { name: "Ada" });
  await env.waitFor(runId, "waiting_input");
  await env.answer(runId, "tone", { action: "accept", content: { tone: "formal" } });
  const outcome = await env.result(runId);
  assert.equal(outcome.status, "completed");
  assert.deepEqual(outcome.status === "completed" && outcome.result.structuredContent, { text: "Good day, Ada." });
});
