import type { McpCall, McpDeps } from "../mcp-deps";
import { legacyTask, requireBoundTask, taskIdOf } from "./bound-task";

/**
 * tasks/get: the flat Task (`ttl`, `pollInterval`, `statusMessage`); unknown, foreign and expired
 * IDs get -32602 (docs/mcp-legacy.md checklist L9, L19). Always plain JSON: the spec asks servers not to upgrade
 * tasks/get to SSE, and its result carries no related-task `_meta` (tasks.mdx, "Associating
 * Task-Related Messages").
 */
export async function tasksGet(deps: McpDeps, call: McpCall, params: Record<string, unknown>) {
  return legacyTask(await requireBoundTask(deps.sql, call.principal, taskIdOf(params), "tasks/get"));
}
