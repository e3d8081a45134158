import { createRun, InvalidWorkflowInput } from "@runifold/sdk";
import { inTransaction, jsonParam, type SqlHandle } from "@runifold/store";
import type { RouteRow } from "../../db/queries/routes";
import type { Principal } from "../auth";
import { readTaskRecord, type TaskRecord } from "./queries/task-record";
import { grantTtlMs } from "./ttl";
import { validateArguments } from "./validate-arguments";

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export const DEFAULT_POLL_INTERVAL_MS = 1_000;

/**
 * Starts the workflow behind a route for a caller, after checking the arguments against the route's
 * input schema (InvalidWorkflowInput, and no run, when they do not fit). The run records the route revision, the key
 * that created it and the granted ttl; it is committed (and readable by any instance) when this
 * returns, which is what lets a CreateTaskResult go out.
 */
export async function createTaskFromRoute(
  sql: SqlHandle,
  params: {
    principal: Principal;
    route: RouteRow;
    args: unknown;
    origin: "modern" | "legacy" | "ordinary";
    requestedTtlMs?: number | null;
    answeredInputs?: Record<string, { request: unknown; response: unknown }>;
    /**
     * The legacy caller's `_meta.progressToken` (2025-11-25 tasks: it stays valid until the task is
     * terminal); stored with the run so whichever instance serves tasks/result can reuse it.
     */
    progressToken?: string | number;
    /**
     * The caller's idempotency key (MCP `_meta["io.runifold/idempotencyKey"]`): the same credential,
     * tool and key return the run first created with it instead of a second one, for a day.
     */
    idempotencyKey?: string;
  },
): Promise<TaskRecord> {
  const { route, principal } = params;
  const checked = validateArguments(route.tool_name, route.input_schema, isPlainObject(params.args) ? params.args : {});
  if (!checked.ok) throw new InvalidWorkflowInput(checked.message, []);
  const create = (handle: SqlHandle) =>
    createRun(handle, {
      tenantId: principal.tenantId,
      routeId: route.id,
      workflowName: route.workflow_name,
      workflowVersion: route.workflow_version,
      input: checked.value,
      createdByKeyId: principal.keyId,
      origin: params.origin,
      ttlMs: grantTtlMs({ requested: params.requestedTtlMs, routeMaxMs: route.max_ttl_ms, tenantMaxMs: principal.maxTtlMs }),
      pollIntervalMs: DEFAULT_POLL_INTERVAL_MS,
      answeredInputs: params.answeredInputs,
      idempotency: params.idempotencyKey ? { key: params.idempotencyKey, scope: idempotencyScope(principal, route) } : undefined,
    });
  const token = params.progressToken;
  // The token commits with the run (one transaction), so no reader ever sees the run without it;
  // a run returned for an idempotency key keeps the token of the call that created it.
  const run =
    token === undefined
      ? await create(sql)
      : await inTransaction(sql, async (tx) => {
          const created = await create(tx);
          if (created.created) {
            await tx.unsafe("UPDATE runs SET progress_token = $2::text::jsonb WHERE id = $1", [created.id, jsonParam(token)]);
          }
          return created;
        });
  return {
    id: run.id,
    tenantId: run.tenant_id,
    routeId: run.route_id,
    workflowKey: run.workflow_key,
    status: run.status,
    origin: run.origin,
    createdByKeyId: run.created_by_key_id,
    ttlMs: run.ttl_ms,
    pollIntervalMs: run.poll_interval_ms,
    statusMessage: run.status_message,
    tenantSlug: principal.tenantSlug,
    waitDetail: run.wait_detail,
    progress: null,
    createdAt: new Date(run.created_at),
    updatedAt: new Date(run.updated_at),
    handleExpired: false,
  };
}

/**
 * Where an idempotency key is unique: the credential and the tool. The credential is part of it
 * because tasks are bound to the credential that created them (task-binding.ts): with the tenant
 * alone, another key of the tenant sending the same idempotency key received this key's result, its
 * pending question or its task id (review F5). The tool, not the revision: a retried call still
 * finds its run after a route edit.
 */
export function idempotencyScope(principal: Pick<Principal, "keyId">, route: Pick<RouteRow, "tool_name">): string {
  return `tool:${route.tool_name}|key:${principal.keyId}`;
}

export { readTaskRecord };
