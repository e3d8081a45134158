import "server-only";
import { z } from "zod";
import { disableRoute, insertRouteRevision } from "../../../db/queries/routes";
import { findTenantById } from "../../../db/queries/tenants";
import { isUniqueViolation } from "../../../db/sql";
import { shippedWorkflows } from "../../../workflows/demo";
import { toolInputSchema } from "../../admin";
import type { OperatorContext } from "../../auth";
import { requireOperator } from "../../auth";
import { AppError } from "../../errors";
import { audit } from "./audit";
import { parseInput } from "./parse-input";

const ZSaveRoute = z.object({
  tenantId: z.string(),
  toolName: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_.-]{1,128}$/, "Letters, digits, _ . - (max 128)"),
  workflowName: z
    .string()
    .trim()
    .regex(/^[a-z0-9][a-z0-9._-]*$/, "A workflow name such as generate-report"),
  workflowVersion: z.coerce.number().int().min(1),
  title: z.string().trim().max(200).optional(),
  description: z.string().trim().max(2_000).optional(),
  taskSupport: z.enum(["optional", "required", "forbidden"]),
});

/**
 * The tool's input schema comes from the workflow this build ships for that exact version. A
 * version no shipped workflow has (served by some other deployment's workers, or by none yet)
 * borrows the newest shipped version's schema, or accepts any object.
 */
function inputSchemaFor(name: string, version: number): Record<string, unknown> {
  const exact = shippedWorkflows.get(name, version);
  if (exact) return toolInputSchema(exact);
  const newest = shippedWorkflows
    .all()
    .filter((workflow) => workflow.name === name)
    .sort((a, b) => b.version - a.version)[0];
  return toolInputSchema(newest);
}

/** Adds a tool or revises it: always a new immutable revision (runs keep the one they started under). */
export async function saveRouteAction(ctx: OperatorContext, input: unknown): Promise<{ revision: number }> {
  const tenantId = String((input as { tenantId?: unknown })?.tenantId ?? "");
  const operator = await requireOperator(ctx, { tenantId, mutating: true });
  const params = parseInput(ZSaveRoute, input);
  if (!(await findTenantById(ctx.sql, tenantId))) throw new AppError("not_found");
  try {
    const route = await insertRouteRevision(ctx.sql, {
      tenantId,
      toolName: params.toolName,
      workflowName: params.workflowName,
      workflowVersion: params.workflowVersion,
      title: params.title || null,
      description: params.description ?? "",
      inputSchema: inputSchemaFor(params.workflowName, params.workflowVersion),
      taskSupport: params.taskSupport,
    });
    audit("route.revise", { operatorId: operator.id, tenantId, tool: route.tool_name, revision: route.revision });
    return { revision: route.revision };
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError("conflict", "Someone else revised this tool at the same moment; try again.");
    throw error;
  }
}

const ZDisableRoute = z.object({ tenantId: z.string(), toolName: z.string().min(1).max(128) });

/** Disables a tool by appending a disabled revision that copies the current one. */
export async function disableRouteAction(ctx: OperatorContext, input: unknown): Promise<void> {
  const tenantId = String((input as { tenantId?: unknown })?.tenantId ?? "");
  const operator = await requireOperator(ctx, { tenantId, mutating: true });
  const { toolName } = parseInput(ZDisableRoute, input);
  if (!(await disableRoute(ctx.sql, tenantId, toolName))) throw new AppError("not_found");
  audit("route.disable", { operatorId: operator.id, tenantId, tool: toolName });
}
