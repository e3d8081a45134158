import { isUuid } from "@runifold/store";
import type { Principal } from "../../auth";
import { listKeyTasks, type TaskListPosition } from "../../tasks";
import { McpError, RPC } from "../json-rpc";
import type { McpCall, McpDeps } from "../mcp-deps";
import { legacyTask } from "./bound-task";

export const TASKS_PAGE_SIZE = 50;

/**
 * tasks/list: only the calling key's tasks (tasks.mdx "Security Considerations": the list MUST only
 * hold tasks of the requestor's authorization context), newest first, 50 per page. `nextCursor` is
 * present exactly while more remain. No related-task `_meta` on the result (it SHOULD NOT).
 */
export async function tasksList(deps: McpDeps, call: McpCall, params: Record<string, unknown>) {
  const after = params.cursor === undefined ? undefined : decodeCursor(params.cursor, call.principal);
  const records = await listKeyTasks(deps.sql, {
    tenantId: call.principal.tenantId,
    keyId: call.principal.keyId,
    after,
    limit: TASKS_PAGE_SIZE,
  });
  const page = records.slice(0, TASKS_PAGE_SIZE);
  const last = page.at(-1);
  return {
    tasks: page.map(legacyTask),
    ...(records.length > TASKS_PAGE_SIZE && last
      ? { nextCursor: encodeCursor({ createdAt: last.createdAt, id: last.id }, call.principal) }
      : {}),
  };
}

type CursorClaims = { v: 1; k: string; t: string; i: string };

/**
 * Opaque to clients (they MUST NOT parse it): base64url JSON of the keyset position plus the key it
 * was issued to. It is not secret — it only says where a page ends in the caller's own list — but a
 * cursor issued to another key, or anything malformed, is refused with -32602 (tasks.mdx "Protocol
 * Errors": invalid or nonexistent cursor).
 */
export function encodeCursor(position: TaskListPosition, principal: Principal): string {
  const claims: CursorClaims = { v: 1, k: principal.keyId, t: position.createdAt.toISOString(), i: position.id };
  return Buffer.from(JSON.stringify(claims)).toString("base64url");
}

export function decodeCursor(cursor: unknown, principal: Principal): TaskListPosition {
  const invalid = () => new McpError(RPC.invalidParams, "Invalid cursor");
  if (typeof cursor !== "string" || cursor.length === 0 || cursor.length > 400 || !/^[A-Za-z0-9_-]+$/.test(cursor))
    throw invalid();
  let claims: Partial<CursorClaims>;
  try {
    claims = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Partial<CursorClaims>;
  } catch {
    throw invalid();
  }
  if (claims?.v !== 1 || claims.k !== principal.keyId || !isUuid(claims.i) || typeof claims.t !== "string") throw invalid();
  const createdAt = new Date(claims.t);
  if (Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== claims.t) throw invalid();
  return { createdAt, id: claims.i };
}
