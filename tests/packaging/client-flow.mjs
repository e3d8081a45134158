// Copied into a project where @runifold/client is the only dependency (tests/packaging): the
// seed's flow in one protocol era. A tool call becomes a task; the finance backend's receipt
// arrives over HTTP; a second client, knowing only the task ID, waits to the manager's question,
// answers it and waits for the result. Prints one JSON line.
// Usage: node client-flow.mjs <mcp url> <key> <tool> <modern|legacy>
import { McpTaskClient } from "@runifold/client";

const [url, key, tool, era] = process.argv.slice(2);
if (!url || !key || !tool || (era !== "modern" && era !== "legacy")) {
  process.stderr.write("usage: node client-flow.mjs <mcp url> <key> <tool> <modern|legacy>\n");
  process.exit(2);
}
const fail = (message) => {
  process.stderr.write(`client-flow (${era}): ${message}\n`);
  process.exit(1);
};

const first = await McpTaskClient.connect(url, { key, era, clientInfo: { name: "client-flow", version: "1" } });
const expenseId = `C-${era}`;
const outcome = await first.callToolOutcome(tool, { expense_id: expenseId, amount: 42, currency: "USD" });
if (outcome.kind !== "task") fail(`expected a task, got ${JSON.stringify(outcome)}`);
const taskId = outcome.task.taskId;

const receipt = `https://receipts.example/${expenseId}.pdf`;
const signal = await fetch(new URL(`/api/v1/tasks/${taskId}/signals/receipt`, url), {
  method: "POST",
  headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
  body: JSON.stringify({ url: receipt }),
});
if (signal.status !== 202) fail(`signal answered ${signal.status}: ${await signal.text()}`);

// Resume by ID: a new client, as after a restart of the caller.
const second = await McpTaskClient.connect(url, { key, era, clientInfo: { name: "client-flow-resumed", version: "1" } });
const waiting = await second.waitTask(taskId, { deadlineMs: 60_000 });
if (waiting.kind !== "input_required") fail(`expected input_required, got ${JSON.stringify(waiting)}`);
await second.updateTask(taskId, { decision: { action: "accept", content: { decision: "approve", comment: era } } });
const done = await second.waitTask(taskId, { deadlineMs: 60_000 });
if (done.kind !== "completed") fail(`expected completed, got ${JSON.stringify(done)}`);

process.stdout.write(
  `${JSON.stringify({
    era: second.era,
    taskId,
    firstStatus: outcome.task.status,
    asked: Object.keys(waiting.inputRequests),
    kind: done.kind,
    isError: done.isError,
    structuredContent: done.result.structuredContent,
  })}\n`,
);
