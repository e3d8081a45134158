import { createHash } from "node:crypto";
import { z } from "zod";
import type { AnyWorkflow, InputRequest } from "../workflow";
import { codeFingerprintOf } from "./code-fingerprint";
import { type PublishedConcurrency, publishedConcurrency } from "./concurrency";

/** Declared asks with both kinds spelled out; preflight requests are questions, so they imply `input`. */
function declaredAsks(workflow: AnyWorkflow): { input: boolean; approval: boolean } | undefined {
  if (!workflow.asks) return undefined;
  const preflight = Object.keys(workflow.preflight ?? {}).length > 0;
  return { input: workflow.asks.input === true || preflight, approval: workflow.asks.approval === true };
}

/** A definition as it is published to the store: data, and a fingerprint of the code (not the code). */
export type PublishedDefinition = {
  name: string;
  version: number;
  title: string | null;
  description: string;
  /** JSON Schema of what callers send (zod's input side: defaulted fields are optional). */
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown> | null;
  preflight: Record<string, InputRequest>;
  /**
   * What the workflow may ask (WorkflowDefinition.asks), both kinds spelled out; null when it did
   * not declare it (then it may ask anything). Part of the fingerprint only when declared, so the
   * fingerprint of a definition written before `asks` existed does not change.
   */
  asks: { input: boolean; approval: boolean } | null;
  /**
   * WorkflowDefinition.concurrency as the store reads it (a pointer split into tokens), null when not
   * declared; `priority` 0 when not declared. Each is part of the fingerprint only when declared, so
   * the fingerprints of definitions written before they existed do not change.
   */
  concurrency: PublishedConcurrency | null;
  priority: number;
  /** sha256 of the canonical JSON of everything above: what callers and routes see of the definition. */
  fingerprint: string;
  /**
   * The build identity of the workflow's code (code-fingerprint.ts), apart from `fingerprint` so
   * that the definition's data keeps its fingerprint across SDK versions and builds. Publishing
   * compares it too (publish.ts): changed code under a version with live runs is refused.
   */
  codeFingerprint: string;
};

/**
 * The tool-facing JSON Schema of a zod schema: `$schema` dropped (tool schemas are plain objects),
 * always `type: "object"` at the top (MCP tools take named arguments), `required` sorted (below),
 * and parts JSON Schema cannot express (transforms, dates) widened to "any" instead of throwing —
 * the worker's zod parse is still the last word on every run.
 */
export function toolSchemaOf(schema: z.ZodType, io: "input" | "output" = "input"): Record<string, unknown> {
  const json = sortRequired(z.toJSONSchema(schema, { io, unrepresentable: "any" })) as Record<string, unknown>;
  const { $schema: _dropped, ...rest } = json;
  return rest.type === "object" ? rest : { type: "object", ...rest };
}

/** Keywords whose value is one subschema, a list of subschemas, or a map of named subschemas. */
const ONE_SCHEMA = ["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames"] as const;
const LIST_OF_SCHEMAS = ["anyOf", "oneOf", "allOf", "prefixItems"] as const;
const MAP_OF_SCHEMAS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"] as const;

/**
 * `required` is a set, but zod lists it in field declaration order: without sorting, reordering
 * the fields of a z.object would change the fingerprint (canonicalJson keeps array order, as it
 * must for `enum` or `prefixItems`) and refuse a harmless edit as a "different definition". Walks
 * subschemas by keyword, so a `default` or `const` value that happens to hold a `required` key
 * keeps its order.
 */
function sortRequired(node: unknown): unknown {
  if (node === null || typeof node !== "object" || Array.isArray(node)) return node;
  const schema: Record<string, unknown> = { ...(node as Record<string, unknown>) };
  if (Array.isArray(schema.required) && schema.required.every((entry) => typeof entry === "string")) {
    schema.required = [...schema.required].sort();
  }
  for (const keyword of ONE_SCHEMA) if (keyword in schema) schema[keyword] = sortRequired(schema[keyword]);
  for (const keyword of LIST_OF_SCHEMAS) {
    const list = schema[keyword];
    if (Array.isArray(list)) schema[keyword] = list.map(sortRequired);
  }
  for (const keyword of MAP_OF_SCHEMAS) {
    const map = schema[keyword];
    if (map !== null && typeof map === "object" && !Array.isArray(map)) {
      schema[keyword] = Object.fromEntries(Object.entries(map).map(([name, sub]) => [name, sortRequired(sub)]));
    }
  }
  return schema;
}

/** JSON with object keys sorted at every depth, so equal definitions hash equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

export function describeDefinition(workflow: AnyWorkflow): PublishedDefinition {
  const declared = {
    name: workflow.name,
    version: workflow.version,
    title: workflow.title ?? null,
    description: workflow.description ?? "",
    inputSchema: toolSchemaOf(workflow.input, "input"),
    outputSchema: workflow.output ? toolSchemaOf(workflow.output, "output") : null,
    // A request's requestedSchema is a JSON Schema too: its `required` is a set like the input's.
    preflight: Object.fromEntries(
      Object.entries(workflow.preflight ?? {}).map(([key, request]) => [
        key,
        { ...request, params: { ...request.params, requestedSchema: sortRequired(request.params.requestedSchema) } },
      ]),
    ) as Record<string, InputRequest>,
    asks: declaredAsks(workflow),
    // canonicalJson drops undefined entries: an undeclared option leaves the fingerprint as it was.
    concurrency: workflow.concurrency ? publishedConcurrency(workflow.concurrency) : undefined,
    priority: workflow.priority || undefined,
  };
  const fingerprint = createHash("sha256").update(canonicalJson(declared)).digest("hex");
  return {
    ...declared,
    asks: declared.asks ?? null,
    concurrency: declared.concurrency ?? null,
    priority: declared.priority ?? 0,
    fingerprint,
    codeFingerprint: codeFingerprintOf(workflow),
  };
}
