import { defineWorkflow, type InputRequest } from "@runifold/sdk";
import { z } from "zod";

/**
 * The conformance suite's fixture tools for its input-required-result-* scenarios (2026-07-28,
 * SEP-2322) and json-schema-2020-12, as durable workflows: each question is a durable
 * `ctx.requestInput`, which the ordinary modern call hands back as an `input_required` round with a
 * signed requestState and takes the client's `inputResponses` for on the retry.
 */

const noArguments = z.object({}).passthrough();

function formQuestion(message: string, properties: Record<string, Record<string, unknown>>, required: string[]): InputRequest {
  return {
    method: "elicitation/create",
    params: { mode: "form", message, requestedSchema: { type: "object", properties, required } },
  };
}

const USER_NAME = formQuestion("What is your name?", { name: { type: "string" } }, ["name"]);

function textOf(content: Record<string, unknown> | undefined, field: string): string {
  const value = content?.[field];
  return typeof value === "string" ? value : "";
}

const basicElicitation = defineWorkflow({
  name: "conformance-input-required-elicitation",
  version: 1,
  description: "Asks for a name, then greets.",
  asks: { input: true },
  input: noArguments,
  async run(ctx) {
    const answer = await ctx.requestInput("user_name", USER_NAME);
    return { content: [{ type: "text", text: `Hello, ${textOf(answer.content, "name")}!` }] };
  },
});

const tamperedState = defineWorkflow({
  name: "conformance-input-required-tampered-state",
  version: 1,
  description: "Asks for a name; a retry whose requestState was altered is refused (-32602) before the run sees it.",
  asks: { input: true },
  input: noArguments,
  async run(ctx) {
    const answer = await ctx.requestInput("user_name", USER_NAME);
    return { content: [{ type: "text", text: `Hello, ${textOf(answer.content, "name")}!` }] };
  },
});

const streamingElicitation = defineWorkflow({
  name: "conformance-streaming-elicitation",
  version: 1,
  description: "Asks one question: on 2026-07-28 the call's answer is an input_required result, never a request on the stream.",
  asks: { input: true },
  input: noArguments,
  async run(ctx) {
    const answer = await ctx.requestInput("user_name", USER_NAME);
    return { content: [{ type: "text", text: `Hello, ${textOf(answer.content, "name")}!` }] };
  },
});

const loggingTool = defineWorkflow({
  name: "conformance-logging-tool",
  version: 1,
  description: "Works briefly and returns; the server sends no log notification unless asked for a log level.",
  asks: {},
  input: noArguments,
  async run(ctx) {
    await ctx.step("work", async () => "done");
    return { content: [{ type: "text", text: "Logging tool finished." }] };
  },
});

const missingCapability = defineWorkflow({
  name: "conformance-missing-capability",
  version: 1,
  description: "Runs only as a task: a call that did not declare the tasks extension is refused with -32021.",
  asks: {},
  input: noArguments,
  async run() {
    return { content: [{ type: "text", text: "Ran as a task." }] };
  },
});

const requestState = defineWorkflow({
  name: "conformance-input-required-request-state",
  version: 1,
  description: "Asks for a confirmation; the answer reaches the run only with the round's verified requestState.",
  asks: { input: true },
  input: noArguments,
  async run(ctx) {
    const answer = await ctx.requestInput("confirm", formQuestion("Please confirm", { ok: { type: "boolean" } }, ["ok"]));
    // An answer reaches a run only after the server checked the retry's requestState (its HMAC,
    // expiry and binding to this call): a tampered or missing state never gets here.
    return { content: [{ type: "text", text: `state-ok: confirmed=${answer.content?.ok === true}` }] };
  },
});

const multiRound = defineWorkflow({
  name: "conformance-input-required-multi-round",
  version: 1,
  description: "Asks two questions, one round each.",
  asks: { input: true },
  input: noArguments,
  async run(ctx) {
    const first = await ctx.requestInput(
      "step1",
      formQuestion("Step 1: What is your name?", { name: { type: "string" } }, ["name"]),
    );
    const second = await ctx.requestInput(
      "step2",
      formQuestion("Step 2: What is your favorite color?", { color: { type: "string" } }, ["color"]),
    );
    return {
      content: [{ type: "text", text: `${textOf(first.content, "name")} likes ${textOf(second.content, "color")}.` }],
    };
  },
});

const jsonSchema202012 = defineWorkflow({
  name: "conformance-json-schema-2020-12",
  version: 1,
  description: "Tool with JSON Schema 2020-12 features",
  asks: {},
  input: noArguments,
  async run(_ctx, input) {
    return { content: [{ type: "text", text: `Received: ${JSON.stringify(input)}` }] };
  },
});

/**
 * The scenario's input schema, given to the route as the caller's schema (the definition's zod
 * schema cannot say `$anchor` or `if`/`then`/`else`): listed byte for byte as written here.
 */
export const JSON_SCHEMA_2020_12 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: { $anchor: "addressDef", type: "object", properties: { street: { type: "string" }, city: { type: "string" } } },
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keyword; this object is never awaited.
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
};

export const conformanceRoundWorkflows = [
  basicElicitation,
  tamperedState,
  requestState,
  multiRound,
  jsonSchema202012,
  streamingElicitation,
  loggingTool,
  missingCapability,
];

export const CONFORMANCE_ROUND_TOOLS = [
  { tool: "test_input_required_result_elicitation", workflow: basicElicitation },
  { tool: "test_input_required_result_tampered_state", workflow: tamperedState },
  { tool: "test_streaming_elicitation", workflow: streamingElicitation },
  { tool: "test_logging_tool", workflow: loggingTool },
  // The capability it needs is the tasks extension: its route's task support is required.
  { tool: "test_missing_capability", workflow: missingCapability, taskSupport: "required" },
  { tool: "test_input_required_result_request_state", workflow: requestState },
  { tool: "test_input_required_result_multi_round", workflow: multiRound },
  { tool: "json_schema_2020_12_tool", workflow: jsonSchema202012, inputSchema: JSON_SCHEMA_2020_12 },
] as const;
