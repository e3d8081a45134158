import type { McpCall, McpDeps } from "../mcp-deps";
import { taskLinksMeta } from "../task-shapes";
import { bindPrefetchedTask, legacyTask, requireBoundTask, taskIdOf } from "./bound-task";

/**
 * tasks/get: the flat Task (`ttl`, `pollInterval`, `statusMessage`); unknown, foreign and expired
 * IDs get -32602 (docs/mcp-legacy.md checklist L9, L19). Always plain JSON: the spec asks servers not to upgrade
 * tasks/get to SSE, and its result carries no related-task `_meta` (tasks.mdx, "Associating
 * Task-Related Messages"). A task linked to a parent or children by ctx.child says so in
 * `_meta["io.runifold/taskLinks"]` (task-shapes.ts taskLinksMeta).
 */
export async function tasksGet(deps: McpDeps, call: McpCall, params: Record<string, unknown>) {
  const taskId = taskIdOf(params);
  // Read with the credential and session already when the body named this task (read-ahead.ts): one round trip.
  const prefetched = call.prefetchedTask?.taskId === taskId ? call.prefetchedTask : undefined;
  const record = prefetched
    ? await bindPrefetchedTask(deps.sql, call.principal, taskId, prefetched.record, "tasks/get")
    : await requireBoundTask(deps.sql, call.principal, taskId, "tasks/get");
  return { ...legacyTask(record), ...taskLinksMeta(record) };
}
