import { isUuid } from "@runifold/store";

/**
 * JSON-RPC IDs of the `elicitation/create` requests a task's input requests go out as. They are
 * derived from task + input key, never from per-process counters, so:
 *  - the client's response can be routed by ANY web instance (stateless, round-robin, restarts);
 *  - re-sending an outstanding question on a new tasks/result stream reuses the same ID, and a
 *    second answer to it is simply ignored (first answer wins in provideInput).
 * Task IDs are UUIDs (no colon), so everything after the second colon is the key.
 */
const PREFIX = "rf-input:";

export function elicitationRequestId(taskId: string, key: string): string {
  return `${PREFIX}${taskId}:${key}`;
}

export function parseElicitationRequestId(id: unknown): { taskId: string; key: string } | undefined {
  if (typeof id !== "string" || !id.startsWith(PREFIX) || id.length > 1_000) return undefined;
  const rest = id.slice(PREFIX.length);
  const colon = rest.indexOf(":");
  if (colon < 0) return undefined;
  const taskId = rest.slice(0, colon);
  const key = rest.slice(colon + 1);
  return isUuid(taskId) && key.length > 0 ? { taskId, key } : undefined;
}
