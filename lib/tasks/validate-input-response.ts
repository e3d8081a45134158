import type { InputRequest, InputResponse } from "@runifold/sdk";
import type { ErrorObject, ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/**
 * An answer to an input request, checked against the request's own `requestedSchema` before it
 * reaches provideInput — the one check every channel goes through (MCP tasks/update, legacy
 * elicitation responses, MRTR rounds, the operator console, the CLI, which answers over MCP).
 * 2025-11-25 and 2026-07-28 client/elicitation.mdx: "Servers SHOULD validate received data matches
 * the requested schema". A wrong type, a missing required field or a value outside an enum is
 * refused, so the workflow never sees an answer it did not ask for.
 *
 * Its own ajv instance: unlike tool arguments, defaults are NOT filled in (a default would make a
 * missing required field pass), and nothing is coerced.
 */
const ajv = new Ajv2020({ allErrors: false, useDefaults: false, strict: false, coerceTypes: false });
addFormats.default(ajv);

const compiled = new Map<string, ValidateFunction>();
const MAX_CACHED = 500;

export type AnswerCheck = { ok: true } | { ok: false; message: string };

function validatorFor(schema: Record<string, unknown>): ValidateFunction | undefined {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    try {
      validate = ajv.compile(schema);
    } catch {
      return undefined; // a schema ajv cannot compile: the workflow's own parsing still guards
    }
    if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value as string);
    compiled.set(key, validate);
  }
  return validate;
}

function describeError(error: ErrorObject): string {
  const at = error.instancePath ? error.instancePath.slice(1).replaceAll("/", ".") : "";
  if (error.keyword === "required")
    return `${at ? `${at}.` : ""}${(error.params as { missingProperty: string }).missingProperty}: required`;
  if (error.keyword === "enum") {
    const allowed = (error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(", ");
    return `${at || "content"}: must be one of ${allowed}`;
  }
  if (error.keyword === "additionalProperties")
    return `${at ? `${at}.` : ""}${(error.params as { additionalProperty: string }).additionalProperty}: not a field of this form`;
  return `${at || "content"}: ${error.message ?? "invalid"}`;
}

/**
 * Checks `response` against `request`. Only an `accept` carries content to check; `decline` and
 * `cancel` are always valid answers (the user said no), and must not carry content. A request
 * without a `requestedSchema` (a URL-mode elicitation, a non-elicitation request) accepts any object.
 */
export function validateInputResponse(key: string, request: InputRequest, response: InputResponse): AnswerCheck {
  if (response.action !== "accept") return { ok: true };
  const params = (request as { params?: { requestedSchema?: unknown } }).params;
  const schema = params?.requestedSchema;
  if (typeof schema !== "object" || schema === null) return { ok: true };
  const validate = validatorFor(schema as Record<string, unknown>);
  if (!validate) return { ok: true };
  if (validate(response.content ?? {})) return { ok: true };
  const first = validate.errors?.[0];
  return {
    ok: false,
    message: `Invalid answer to input request "${key}": ${first ? describeError(first) : "does not match the form"}`,
  };
}
