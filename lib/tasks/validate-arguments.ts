import type { ErrorObject, ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/**
 * Tool arguments checked against the route's input JSON Schema in the web tier, before a run
 * exists: a caller's mistake answers as a tool error naming the field (MCP 2025-11-25 and
 * 2026-07-28 server/tools "Error Handling": input validation errors are tool execution errors the
 * model can correct), never as a created task that fails later. The schema is the one the route
 * advertises in tools/list (copied from the published definition when the route was bound), so
 * what a client is told and what is enforced cannot drift. Workers still parse with the
 * workflow's own zod schema.
 */
const ajv = new Ajv2020({ allErrors: false, useDefaults: true, strict: false, coerceTypes: false });
addFormats.default(ajv);

/** Compiled validators by schema text: routes share schemas, and a revision's schema never changes. */
const compiled = new Map<string, ValidateFunction>();
const MAX_CACHED = 500;

export type ArgumentCheck = { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

function validatorFor(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value as string);
    compiled.set(key, validate);
  }
  return validate;
}

function describeError(error: ErrorObject): string {
  const at = error.instancePath ? error.instancePath.slice(1).replaceAll("/", ".") : "";
  if (error.keyword === "required") {
    const field = (error.params as { missingProperty: string }).missingProperty;
    return `${at ? `${at}.` : ""}${field}: required`;
  }
  if (error.keyword === "additionalProperties") {
    const field = (error.params as { additionalProperty: string }).additionalProperty;
    return `${at ? `${at}.` : ""}${field}: not a known argument`;
  }
  return `${at || "arguments"}: ${error.message ?? "invalid"}`;
}

export function validateArguments(
  toolName: string,
  schema: Record<string, unknown>,
  args: Record<string, unknown>,
): ArgumentCheck {
  let validate: ValidateFunction;
  try {
    validate = validatorFor(schema);
  } catch {
    // A schema ajv cannot compile was published by a worker; the worker's zod parse still guards.
    return { ok: true, value: args };
  }
  const value = structuredClone(args);
  if (validate(value)) return { ok: true, value };
  const first = validate.errors?.[0];
  return { ok: false, message: `Invalid arguments for ${toolName}: ${first ? describeError(first) : "invalid"}` };
}
