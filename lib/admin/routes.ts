import {
  type AnyWorkflow,
  describeDefinition,
  type PublishedDefinition,
  toolSchemaOf,
  type WorkflowRegistry,
} from "@runifold/sdk";
import { z } from "zod";
import {
  disableRoute as appendDisabledRevision,
  findLatestRoute,
  insertRouteRevision,
  MAX_SYNC_DEADLINE_MS,
  type RouteRow,
  scheduleOf,
} from "../../db/queries/routes";
import { findTenantById } from "../../db/queries/tenants";
import { AppError } from "../errors";
import type { AdminContext } from "./actor";
import { audit } from "./audit";
import { conflictOnDuplicate } from "./conflicts";
import { parseInput } from "./parse-input";
import { checkSchedule } from "./route-schedule";
import {
  descriptionRule,
  idRule,
  taskSupportRule,
  titleRule,
  toolNameRule,
  workflowNameRule,
  workflowVersionRule,
} from "./rules";

/**
 * What binding a route reads from a workflow version's published definition (DESIGN.md §1: a
 * worker publishes name, version, title, description, input JSON Schema and preflight requests).
 * The route keeps copies, so tools/call reads one row (db/schema/routes.ts).
 */
export type RouteDefinition = Pick<PublishedDefinition, "title" | "description" | "inputSchema" | "preflight"> & {
  /** The store's revision of the definition; absent when it was not read from the store. */
  revision?: number;
};

/**
 * Where definitions come from, injected by each composition root: the console, the CLI and the seed
 * pass definitionsFromStore (what workers published); definitionsFromRegistry serves in-process
 * callers that hold the definitions themselves. lib/admin itself never imports workflow code.
 */
export type ResolveDefinition = (name: string, version: number) => Promise<RouteDefinition | undefined>;

export type RouteDeps = AdminContext & { resolveDefinition: ResolveDefinition };

/** The tool's advertised input schema, as workers publish it (`{type:"object"}` without a workflow). */
export function toolInputSchema(workflow: AnyWorkflow | undefined): Record<string, unknown> {
  return workflow ? toolSchemaOf(workflow.input, "input") : { type: "object" };
}

/** A resolver over a registry: the definition of that exact name and version, described as a worker publishes it. */
export function definitionsFromRegistry(registry: WorkflowRegistry): ResolveDefinition {
  return async (name, version) => {
    const workflow = registry.get(name, version);
    return workflow ? describeDefinition(workflow) : undefined;
  };
}

/** A name@version no definition is known for, refused unless the caller allows unpublished versions. */
export class UnpublishedWorkflowError extends AppError {
  constructor(readonly workflowKey: string) {
    super(
      "bad_request",
      `No published definition of ${workflowKey} is known. To bind it anyway, allow an unpublished version: its tool then accepts any object as input.`,
    );
  }
}

/** MCP tool input schemas are object schemas. */
const inputSchemaRule = z
  .record(z.string(), z.unknown())
  .refine((schema) => schema.type === "object", 'A JSON Schema object with "type": "object"');

export const ZSaveRoute = z.object({
  tenantId: idRule,
  toolName: toolNameRule,
  workflowName: workflowNameRule,
  workflowVersion: workflowVersionRule,
  /** Blank or absent: the definition's. */
  title: titleRule.optional(),
  /** Blank or absent: the definition's. */
  description: descriptionRule.optional(),
  taskSupport: taskSupportRule.default("optional"),
  /** Given by the caller (the CLI's --input-schema): wins over the definition's. */
  inputSchema: inputSchemaRule.optional(),
  /** Bind a name@version no definition is known for; its tool then accepts any object. */
  allowUnpublished: z.boolean().default(false),
  /** Absent: the tenant's cap on a task handle's lifetime. */
  maxTtlMs: z.number().int().min(1_000, "At least 1000").nullable().optional(),
  /** Absent: 30000 (db/queries/routes.ts DEFAULT_SYNC_DEADLINE_MS); at most MAX_SYNC_DEADLINE_MS. */
  syncDeadlineMs: z.number().int().min(0).max(MAX_SYNC_DEADLINE_MS, "At most 900000 (15 minutes)").optional(),
});

/** Where the route's input schema came from: the caller, the published definition, or neither (`{type:"object"}`). */
export type InputSchemaSource = "caller" | "definition" | "unpublished";

export type SavedRoute = { route: RouteRow; inputSchemaFrom: InputSchemaSource };

/**
 * THE route-creation rule, for console, CLI and seed: adds a tool or revises it, always as a new
 * immutable revision (runs keep the one they started under). The input schema is the caller's if
 * given, else the published definition's of that exact name@version; a version without a known
 * definition is refused unless `allowUnpublished`, and then accepts any object. The definition's
 * preflight requests and store revision go onto the route too.
 */
export async function saveRoute(deps: RouteDeps, input: z.input<typeof ZSaveRoute>): Promise<SavedRoute> {
  const params = parseInput(ZSaveRoute, input);
  const tenant = await findTenantById(deps.sql, params.tenantId);
  if (!tenant) throw new AppError("not_found");
  const key = `${params.workflowName}@${params.workflowVersion}`;
  const definition = await deps.resolveDefinition(params.workflowName, params.workflowVersion);
  if (!definition && !params.inputSchema && !params.allowUnpublished) throw new UnpublishedWorkflowError(key);
  const inputSchemaFrom: InputSchemaSource = params.inputSchema ? "caller" : definition ? "definition" : "unpublished";
  const inputSchema = params.inputSchema ?? definition?.inputSchema ?? { type: "object" };
  // A revision keeps the tool's schedule; its input must still fit the new revision's schema.
  const previous = await findLatestRoute(deps.sql, tenant.id, params.toolName);
  const carried = previous ? scheduleOf(previous) : null;
  // ... and its pause: revising a route must not resume a paused schedule.
  const schedule = carried
    ? { ...checkSchedule({ tool_name: params.toolName, input_schema: inputSchema }, carried), paused: carried.paused }
    : null;
  const route = await conflictOnDuplicate(
    () =>
      insertRouteRevision(deps.sql, {
        tenantId: tenant.id,
        toolName: params.toolName,
        workflowName: params.workflowName,
        workflowVersion: params.workflowVersion,
        title: params.title || definition?.title || null,
        description: params.description || definition?.description || "",
        inputSchema,
        schedule,
        // Preflight requests belong to the workflow, not to its schema: copied whatever the schema's source.
        preflight: definition && Object.keys(definition.preflight).length > 0 ? definition.preflight : null,
        definitionRevision: definition?.revision ?? null,
        taskSupport: params.taskSupport,
        maxTtlMs: params.maxTtlMs ?? null,
        syncDeadlineMs: params.syncDeadlineMs,
      }),
    "Someone else revised this tool at the same moment; try again.",
  );
  await audit(deps, "route.revise", {
    tenantId: tenant.id,
    tool: route.tool_name,
    revision: route.revision,
    workflow: key,
    inputSchemaFrom,
  });
  return { route, inputSchemaFrom };
}

export const ZDisableRoute = z.object({ tenantId: idRule, toolName: toolNameRule });

/** Disables a tool by appending a disabled revision that copies the current one (`saveRoute` enables it again). */
export async function disableRoute(ctx: AdminContext, input: z.input<typeof ZDisableRoute>): Promise<RouteRow> {
  const { tenantId, toolName } = parseInput(ZDisableRoute, input);
  const tenant = await findTenantById(ctx.sql, tenantId);
  if (!tenant) throw new AppError("not_found");
  const route = await appendDisabledRevision(ctx.sql, tenant.id, toolName);
  if (!route) throw new AppError("not_found", `No active tool "${toolName}" for tenant ${tenant.slug}`);
  await audit(ctx, "route.disable", { tenantId: tenant.id, tool: toolName, revision: route.revision });
  return route;
}
