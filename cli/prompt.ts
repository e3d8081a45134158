import { createInterface } from "node:readline";
import type { ElicitParams, InputRequest, InputResponse } from "@runifold/client";
import { type FormField, fieldsFromSchema, type RawValue, validateForm } from "../lib/ui/schema-form";
import { unsanitized } from "./output";

export type PromptStreams = {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream & { isTTY?: boolean };
  signal?: AbortSignal;
};

const TRUE = /^(y|yes|true|1|on)$/i;
const FALSE = /^(n|no|false|0|off)$/i;

function hint(field: FormField): string {
  const parts: string[] = [];
  if (field.kind === "boolean") parts.push("y/n");
  if (field.kind === "number") parts.push(field.integer ? "integer" : "number");
  if (field.kind === "multi") parts.push("comma-separated");
  if (field.default !== undefined)
    parts.push(`default ${Array.isArray(field.default) ? field.default.join(",") : String(field.default)}`);
  if (!field.required) parts.push("optional");
  return parts.length > 0 ? ` (${parts.join(", ")})` : "";
}

/** What the user typed, as the form's raw value: an option's number or label picks it, empty takes the default. */
function rawValue(field: FormField, answer: string): RawValue {
  if (answer === "") {
    if (field.default === undefined) return field.kind === "multi" ? [] : undefined;
    return Array.isArray(field.default)
      ? field.default
      : typeof field.default === "boolean"
        ? field.default
        : String(field.default);
  }
  if (field.kind === "boolean") return TRUE.test(answer) ? true : FALSE.test(answer) ? false : answer;
  if (field.kind === "enum") {
    const index = Number(answer);
    const byIndex = Number.isInteger(index) ? field.options[index - 1] : undefined;
    const byLabel =
      field.options.find((o) => o.value === answer) ?? field.options.find((o) => o.label.toLowerCase() === answer.toLowerCase());
    return (byLabel ?? byIndex)?.value ?? answer;
  }
  if (field.kind === "multi") return answer.split(",").map((part) => part.trim());
  return answer;
}

/**
 * Asks for one elicitation on a terminal, field by field from its requestedSchema (string, number,
 * integer, boolean, enum, multi-select), re-asking until each value is valid. `:decline` or
 * `:cancel` at any prompt refuses the request. Undefined when it cannot be answered here (not an
 * elicitation, input closed, aborted).
 */
export async function promptForInput(
  key: string,
  request: InputRequest,
  streams: PromptStreams,
): Promise<InputResponse | undefined> {
  if (request.method !== "elicitation/create") return undefined;
  const params = (request.params ?? {}) as ElicitParams;
  const rl = createInterface({
    input: streams.input,
    // readline's own line editing writes escape sequences: it gets the raw stream; our writes stay sanitised.
    output: unsanitized(streams.output),
    terminal: Boolean(streams.input.isTTY && streams.output.isTTY),
  });
  const lines = rl[Symbol.asyncIterator]();
  const onAbort = () => rl.close();
  streams.signal?.addEventListener("abort", onAbort, { once: true });
  const ask = async (question: string): Promise<string | undefined> => {
    streams.output.write(question);
    const next = await lines.next();
    return next.done ? undefined : String(next.value).trim();
  };
  try {
    streams.output.write(`\n? ${params.message ?? "Input requested"} [${key}]\n  (answer :decline or :cancel to refuse)\n`);
    const fields = fieldsFromSchema(params.requestedSchema);
    const raw: Record<string, RawValue> = {};
    for (const field of fields) {
      if (field.kind === "enum" || field.kind === "multi") {
        field.options.forEach((o, i) => {
          streams.output.write(`    ${i + 1}) ${o.label}${o.label === o.value ? "" : ` [${o.value}]`}\n`);
        });
      }
      for (;;) {
        const answer = await ask(`  ${field.label}${hint(field)}: `);
        if (answer === undefined) return undefined;
        if (answer === ":decline" || answer === ":cancel") return { action: answer === ":decline" ? "decline" : "cancel" };
        const value = rawValue(field, answer);
        const problem =
          field.kind === "boolean" && typeof value === "string"
            ? "Answer y or n"
            : validateForm([field], { [field.key]: value }).errors[field.key];
        if (!problem) {
          raw[field.key] = value;
          break;
        }
        streams.output.write(`    ${problem}\n`);
      }
    }
    if (fields.length === 0) {
      const answer = await ask("  Accept? [Y/n]: ");
      if (answer === undefined) return undefined;
      if (FALSE.test(answer) || answer === ":decline") return { action: "decline" };
      if (answer === ":cancel") return { action: "cancel" };
    }
    return { action: "accept", content: validateForm(fields, raw).content };
  } finally {
    streams.signal?.removeEventListener("abort", onAbort);
    rl.close();
  }
}
