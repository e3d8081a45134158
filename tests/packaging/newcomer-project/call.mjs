// The newcomer's agent (tests/packaging/newcomer.test.ts): the official MCP TypeScript SDK v1
// client, 2025-11-25 tasks, with the dev server's API key. It calls the tool as a task and follows
// it with tasks/get (pollInterval as the server says) while a person answers in the console, then
// reads tasks/result. It declares form elicitation (the tool asks questions, so a tasks client
// without it is refused) but is never asked: it does not call tasks/result before the task ends.
// Prints one JSON line per event. Usage: node call.mjs <mcp url> <api key> <tool> <name>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [url, key, tool, name] = process.argv.slice(2);
if (!url || !key || !tool || !name) {
  process.stderr.write("usage: node call.mjs <mcp url> <api key> <tool> <name>\n");
  process.exit(2);
}
const say = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);

const client = new Client({ name: "newcomer-agent", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  say({ event: "elicited", message: request.params.message });
  return { action: "decline" };
});
await client.connect(
  new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
);

const created = await client.request(
  { method: "tools/call", params: { name: tool, arguments: { name }, task: { ttl: 3_600_000 } } },
  CreateTaskResultSchema,
);
const { taskId } = created.task;
say({ event: "created", taskId, status: created.task.status });

let last = "";
for (;;) {
  const task = await client.experimental.tasks.getTask(taskId);
  if (task.status !== last) say({ event: "status", status: task.status });
  last = task.status;
  if (["completed", "failed", "cancelled"].includes(task.status)) break;
  await new Promise((resolve) => setTimeout(resolve, task.pollInterval ?? 1000));
}
const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
say({ event: "result", isError: result.isError ?? false, structuredContent: result.structuredContent });
await client.close();
