import { createHash } from "node:crypto";
import { z } from "zod";
import type { AnyWorkflow, InputRequest } from "../workflow";

/** A definition as it is published to the store: data only, no code. */
export type PublishedDefinition = {
  name: string;
  version: number;
  title: string | null;
  description: string;
  /** JSON Schema of what callers send (zod's input side: defaulted fields are optional). */
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown> | null;
  preflight: Record<string, InputRequest>;
  /** sha256 of the canonical JSON of everything above. */
  fingerprint: string;
};

/**
 * The tool-facing JSON Schema of a zod schema: `$schema` dropped (tool schemas are plain objects),
 * always `type: "object"` at the top (MCP tools take named arguments), and parts JSON Schema cannot
 * express (transforms, dates) widened to "any" instead of throwing — the worker's zod parse is
 * still the last word on every run.
 */
export function toolSchemaOf(schema: z.ZodType, io: "input" | "output" = "input"): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  const { $schema: _dropped, ...rest } = json;
  return rest.type === "object" ? rest : { type: "object", ...rest };
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
    preflight: workflow.preflight ?? {},
  };
  const fingerprint = createHash("sha256").update(canonicalJson(declared)).digest("hex");
  return { ...declared, fingerprint };
}
