import { RUN_STATUSES, type RunStatus, readRunHistory } from "@runifold/sdk";
import { isUuid } from "@runifold/store";
import { cancelTask, rerunTask } from "../../admin";
import { AppError } from "../../errors";
import { findTaskDetail, listTaskPage } from "../../tasks";
import { jsonResponse } from "../responses";
import { type AdminCall, visibleTenant } from "./context";
import { decodeCursor, encodeCursor, pageRequest } from "./pagination";

/**
 * GET /api/v1/admin/tasks[?tenant=<slug>&status=a,b&limit=&cursor=]: tasks of the tenants the token's
 * operator sees, newest first, keyset-paginated on (created_at, id) in the store (the console's query).
 */
export async function listTasksApi(call: AdminCall): Promise<Response> {
  const page = pageRequest(call.url);
  const slug = call.url.searchParams.get("tenant");
  const tenantId = slug ? (await visibleTenant(call, slug)).id : undefined;
  const statuses = statusesOf(call.url.searchParams.get("status"));
  const after = page.cursor === undefined ? undefined : decodeCursor(page.cursor, 2);
  if (after && (Number.isNaN(Date.parse(after[0] as string)) || !isUuid(after[1])))
    throw new AppError("bad_request", "cursor: not a cursor this list returned");
  const rows = await listTaskPage(call.sql, {
    scope: call.principal.tenantIds,
    tenantId,
    statuses,
    after: after ? { createdAt: after[0] as string, id: after[1] as string } : undefined,
    limit: page.limit + 1,
  });
  const shown = rows.slice(0, page.limit);
  const last = shown.at(-1);
  return jsonResponse(
    {
      tasks: shown.map((row) => ({
        taskId: row.id,
        tenant: row.tenant_slug,
        tool: row.tool_name,
        workflow: row.workflow_key,
        status: row.status,
        statusMessage: row.status_message,
        failure: row.failure_code ? { code: row.failure_code, message: row.failure_message } : null,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        finishedAt: row.finished_at,
      })),
      nextCursor: rows.length > page.limit && last ? encodeCursor([last.cursor_at, last.id]) : null,
    },
    200,
  );
}

function statusesOf(raw: string | null): RunStatus[] | undefined {
  if (!raw) return undefined;
  const statuses = raw.split(",").map((status) => status.trim());
  const unknown = statuses.filter((status) => !(RUN_STATUSES as readonly string[]).includes(status));
  if (unknown.length > 0) throw new AppError("bad_request", `status: one or more of ${RUN_STATUSES.join(", ")}`);
  return statuses as RunStatus[];
}

/** GET /api/v1/admin/tasks/{id}: one task as the console shows it; another tenant's is 404 like an unknown one. */
export async function getTaskApi(call: AdminCall, [taskId]: string[]): Promise<Response> {
  const row = await findTaskDetail(call.sql, { taskId: taskId as string, scope: call.principal.tenantIds });
  if (!row) throw new AppError("not_found", `No task ${taskId}`);
  return jsonResponse(
    {
      taskId: row.id,
      tenant: row.tenant_slug,
      tool: row.tool_name,
      routeRevision: row.route_revision,
      workflow: row.workflow_key,
      status: row.status,
      statusMessage: row.status_message,
      input: row.input,
      waitDetail: row.wait_detail,
      progress: row.progress,
      pendingInputs: row.pending_inputs ?? {},
      outcome: row.terminal,
      failure: row.failure,
      attempt: row.attempt,
      cancelRequestedAt: row.cancel_requested_at,
      parentTaskId: row.parent_run_id,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      finishedAt: row.finished_at,
    },
    200,
  );
}

/** POST /api/v1/admin/tasks/{id}/cancel: lib/admin cancelTask (audited); 200 `{ taskId, outcome }`. */
export async function cancelTaskApi(call: AdminCall, [taskId]: string[]): Promise<Response> {
  const { outcome } = await cancelTask(call, { taskId: taskId as string, scope: call.principal.tenantIds });
  return jsonResponse({ taskId, outcome }, 200);
}

/** GET /api/v1/admin/tasks/{id}/history: the run's history as `runifold tasks history --json` exports it (replayHistory reads it). */
export async function taskHistoryApi(call: AdminCall, [taskId]: string[]): Promise<Response> {
  const history = await readRunHistory(call.sql, { runId: taskId as string, tenantIds: call.principal.tenantIds });
  if (!history) throw new AppError("not_found", `No task ${taskId}`);
  return jsonResponse(history, 200);
}

/**
 * POST /api/v1/admin/tasks/{id}/rerun: lib/admin rerunTask (same input, a new task linked both ways,
 * audited); 201 `{ taskId, rerunId, tenantId }`, 409 while the task still runs.
 */
export async function rerunTaskApi(call: AdminCall, [taskId]: string[]): Promise<Response> {
  return jsonResponse(await rerunTask(call, { taskId: taskId as string, scope: call.principal.tenantIds }), 201);
}
