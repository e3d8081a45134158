import { type AnyWorkflow, defineWorkflow, type InputRequest, WorkflowFailure } from "@runifold/sdk";
import { z } from "zod";

/**
 * The official conformance suite's fixture tools (tasks-* scenarios) as real durable workflows.
 * Their task support lives on the routes (workflows/demo/seed.ts): greet forbidden, failing_job and
 * test_tool_with_task required, the rest optional.
 */
const greet = defineWorkflow({
  name: "conformance-greet",
  version: 1,
  description: "Greets synchronously.",
  asks: {},
  input: z.object({ name: z.string().max(200) }),
  async run(_ctx, input) {
    return { content: [{ type: "text", text: `Hello, ${input.name}!` }] };
  },
});

const slowCompute = defineWorkflow({
  name: "conformance-slow-compute",
  version: 1,
  description: "Computes for the given number of seconds (a durable timer); cancellable.",
  asks: {},
  input: z.object({ seconds: z.number().min(0).max(3_600).default(1), label: z.string().max(200).default("") }),
  async run(ctx, input) {
    if (input.seconds > 0) await ctx.sleep("compute", input.seconds * 1_000);
    return {
      content: [{ type: "text", text: `Computed ${input.label || "result"} in ${input.seconds}s` }],
      structuredContent: { label: input.label, seconds: input.seconds },
    };
  },
});

const failingJob = defineWorkflow({
  name: "conformance-failing-job",
  version: 1,
  description: "Ends after about a second with a tool-level error (isError: true).",
  asks: {},
  input: z.object({}).passthrough(),
  async run(ctx) {
    await ctx.sleep("work", 1_000);
    return { content: [{ type: "text", text: "The job failed: simulated application error" }], isError: true };
  },
});

const protocolErrorJob = defineWorkflow({
  name: "conformance-protocol-error-job",
  version: 1,
  description: "Ends failed with a JSON-RPC error.",
  asks: {},
  input: z.object({}).passthrough(),
  async run(ctx) {
    await ctx.step("attempt", async () => true);
    throw new WorkflowFailure("Simulated protocol error", -32603);
  },
});

const confirmDelete = defineWorkflow({
  name: "conformance-confirm-delete",
  version: 1,
  description: "Asks for confirmation before deleting a file.",
  asks: { input: true },
  input: z.object({ filename: z.string().max(500) }),
  async run(ctx, input) {
    const answer = await ctx.requestInput("confirm", {
      method: "elicitation/create",
      params: {
        mode: "form",
        message: `Delete ${input.filename}?`,
        requestedSchema: {
          type: "object",
          properties: { confirm: { type: "boolean", title: "Confirm deletion" } },
          required: ["confirm"],
        },
      },
    });
    const confirmed = answer.action === "accept" && answer.content?.confirm === true;
    return { content: [{ type: "text", text: confirmed ? `Deleted ${input.filename}` : `Kept ${input.filename}` }] };
  },
});

const multiInput = defineWorkflow({
  name: "conformance-multi-input",
  version: 1,
  description: "Asks two questions at once.",
  asks: { input: true },
  input: z.object({}).passthrough(),
  async run(ctx) {
    const answers = await ctx.requestInputs({
      name: {
        method: "elicitation/create",
        params: {
          mode: "form",
          message: "Your name?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        },
      },
      confirm: {
        method: "elicitation/create",
        params: {
          mode: "form",
          message: "Confirm?",
          requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] },
        },
      },
    });
    const name = answers.name?.content?.name ?? "anonymous";
    const confirmed = answers.confirm?.content?.confirm === true;
    return { content: [{ type: "text", text: `Name: ${String(name)}; confirmed: ${confirmed}` }] };
  },
});

const USER_NAME_REQUEST: InputRequest = {
  method: "elicitation/create",
  params: {
    mode: "form",
    message: "What is your name?",
    requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
  },
};

const toolWithTask = defineWorkflow({
  name: "conformance-tool-with-task",
  version: 1,
  description: "Asks for a name (an MRTR round before the task exists), then works as a task.",
  asks: { input: true },
  input: z.object({}).passthrough(),
  preflight: { user_name: USER_NAME_REQUEST },
  async run(ctx) {
    const answer = await ctx.requestInput("user_name", USER_NAME_REQUEST);
    const content = answer.content ?? {};
    const name =
      typeof content.name === "string" ? content.name : (Object.values(content).find((v) => typeof v === "string") ?? "stranger");
    await ctx.sleep("work", 200);
    return { content: [{ type: "text", text: `Hello, ${String(name)}! Your task is done.` }] };
  },
});

export const conformanceWorkflows: AnyWorkflow[] = [
  greet,
  slowCompute,
  failingJob,
  protocolErrorJob,
  confirmDelete,
  multiInput,
  toolWithTask,
];

/** Tool name → workflow and task support, as the conformance suite expects them. */
export const CONFORMANCE_TOOLS = [
  { tool: "greet", workflow: greet, taskSupport: "forbidden" },
  { tool: "slow_compute", workflow: slowCompute, taskSupport: "optional" },
  { tool: "failing_job", workflow: failingJob, taskSupport: "required" },
  { tool: "protocol_error_job", workflow: protocolErrorJob, taskSupport: "optional" },
  { tool: "confirm_delete", workflow: confirmDelete, taskSupport: "optional" },
  { tool: "multi_input", workflow: multiInput, taskSupport: "optional" },
  { tool: "test_tool_with_task", workflow: toolWithTask, taskSupport: "required" },
] as const;
