import type { AnyWorkflow } from "@runifold/sdk";
import { z } from "zod";
import type { NewRouteRevision, TaskSupport } from "../../db/queries/routes";

/** The tool's advertised input schema, derived from the workflow's zod schema (what callers send). */
export function toolInputSchema(workflow: AnyWorkflow | undefined): Record<string, unknown> {
  if (!workflow) return { type: "object" };
  const schema = z.toJSONSchema(workflow.input, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  const { $schema: _ignored, ...rest } = schema;
  return rest.type === "object" ? rest : { type: "object", ...rest };
}

export function routeFromWorkflow(
  workflow: AnyWorkflow,
  params: { tenantId: string; toolName: string; taskSupport: TaskSupport; title?: string },
): NewRouteRevision {
  return {
    tenantId: params.tenantId,
    toolName: params.toolName,
    workflowName: workflow.name,
    workflowVersion: workflow.version,
    title: params.title ?? workflow.title ?? null,
    description: workflow.description ?? "",
    inputSchema: toolInputSchema(workflow),
    taskSupport: params.taskSupport,
  };
}
