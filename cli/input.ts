import type { InputRequest, InputRequestHandler, InputResponse } from "@runifold/client";
import { type OptionSpec, parseJsonOption, UsageError } from "./args";
import type { CliIo } from "./commands/registry";
import { promptForInput } from "./prompt";

export const INPUT_OPTION: OptionSpec = {
  name: "input",
  value: "KEY=JSON",
  multiple: true,
  description: `Answer input request KEY: its content object (decision='{"decision":"approve"}'), or a whole ElicitResult ('{"action":"decline"}'); repeatable`,
};

/** `--input KEY=JSON` values by key. */
export function parseInputs(values: string[]): Map<string, unknown> {
  const inputs = new Map<string, unknown>();
  for (const entry of values) {
    const eq = entry.indexOf("=");
    if (eq <= 0) throw new UsageError(`--input takes KEY=JSON (got "${entry}")`);
    const key = entry.slice(0, eq);
    if (inputs.has(key)) throw new UsageError(`--input ${key} given twice`);
    inputs.set(key, parseJsonOption(entry.slice(eq + 1), `--input ${key}`));
  }
  return inputs;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The ElicitResult for an --input value: a whole `{action, content?}` object as given; any other
 * object is accepted content; a bare value fills the only field of a one-field form.
 */
export function toInputResponse(key: string, value: unknown, request?: InputRequest): InputResponse {
  if (isObject(value) && (value.action === "accept" || value.action === "decline" || value.action === "cancel")) {
    return { action: value.action, ...(isObject(value.content) ? { content: value.content } : {}) };
  }
  if (isObject(value)) return { action: "accept", content: value };
  const schema = (request?.params as { requestedSchema?: { properties?: Record<string, unknown> } } | undefined)?.requestedSchema;
  const fields = Object.keys(schema?.properties ?? {});
  if (fields.length === 1) return { action: "accept", content: { [fields[0] as string]: value } };
  throw new UsageError(`--input ${key}: give the content object, e.g. ${key}='{"field":"value"}'`);
}

/**
 * Answers from --input first; otherwise, on a terminal, asks the user (prompts on stderr); otherwise
 * leaves the request open (the command then reports that input is required).
 */
export function inputHandler(inputs: Map<string, unknown>, io: CliIo): InputRequestHandler {
  const interactive = Boolean(io.stdin.isTTY && io.stderr.isTTY);
  return async (key, request) => {
    if (inputs.has(key)) return toInputResponse(key, inputs.get(key), request);
    return interactive ? promptForInput(key, request, { input: io.stdin, output: io.stderr, signal: io.signal }) : undefined;
  };
}
