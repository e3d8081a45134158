import { isUuid, type SqlHandle } from "@runifold/store";
import "server-only";
import type { Operator } from "../../auth";
import { AppError } from "../../errors";
import { idPrefixRange, listTaskPage, parseInputFilter, type TaskListRow } from "../../tasks";
import { isStatusFilter, STATUS_FILTERS } from "./status-labels";

export const TASK_PAGE_SIZE = 25;

/** A row of the live task list, as JSON for the browser (which adds the diagnosis in its own zone). */
export type TaskListItem = {
  id: string;
  tenantSlug: string;
  tool: string | null;
  workflowKey: string;
  status: TaskListRow["status"];
  waitDetail: TaskListRow["wait_detail"];
  progress: TaskListRow["progress"];
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
  statusMessage: string | null;
  /** A failed task's stored cause, its message cut short (lib/tasks/queries/operator-task-list.ts); null otherwise. */
  failureCause: { code: string; message: string } | null;
  handleExpired: boolean;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
};

export type TaskListPage = {
  items: TaskListItem[];
  /** Cursor of the next (older) page, if any. */
  next: string | null;
  workers: { id: string; workflows: string[] }[];
  serverNow: string;
  /** Why the input filter was refused (shown under its box); the list is then empty. */
  inputFilterError?: string;
};

const iso = (value: Date | null) => (value ? new Date(value).toISOString() : null);

/** The next-page cursor: where the page ends (created time and ID), opaque to the browser. */
export function encodeCursor(last: { createdAt: string; id: string }): string {
  return Buffer.from(`${last.createdAt}|${last.id}`).toString("base64url");
}

export function decodeCursor(cursor: string): { createdAt: string; id: string } {
  const [createdAt, id] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  if (!createdAt || !id || Number.isNaN(Date.parse(createdAt)) || !isUuid(id)) throw new AppError("bad_request", "Bad cursor.");
  return { createdAt, id };
}

function parseDate(value: string | null): Date | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new AppError("bad_request", "Bad date.");
  return date;
}

/**
 * One page of tasks for the URL's filters: tenant (id), tool, status (a STATUS_FILTERS key),
 * from/to (created time), q (task-ID prefix), input (an input filter, lib/tasks/input-filter.ts),
 * answered (who answered an input), cursor. One query, whatever the page holds.
 */
export async function presentTaskPage(sql: SqlHandle, operator: Operator, search: URLSearchParams): Promise<TaskListPage> {
  // PostgreSQL text cannot hold U+0000: a filter with it is a bad request, not a failed query (review F11).
  for (const [name, value] of search) {
    if (value.includes("\u0000")) throw new AppError("bad_request", `The ${name.slice(0, 40)} filter contains U+0000.`);
  }
  const status = search.get("status") ?? "";
  const q = search.get("q")?.trim() ?? "";
  const idRange = q ? idPrefixRange(q) : undefined;
  if (q && !idRange) return { items: [], next: null, workers: [], serverNow: new Date().toISOString() };
  const inputFilter = parseInputFilter(search.get("input") ?? "");
  if (!inputFilter.ok)
    return { items: [], next: null, workers: [], serverNow: new Date().toISOString(), inputFilterError: inputFilter.error };
  const tenantId = search.get("tenant") || undefined;
  if (tenantId && !isUuid(tenantId)) throw new AppError("bad_request", "Bad tenant.");
  const cursor = search.get("cursor");
  const rows = await listTaskPage(sql, {
    scope: operator.tenantIds,
    tenantId,
    toolName: search.get("tool") || undefined,
    statuses: isStatusFilter(status) ? [...STATUS_FILTERS[status].statuses] : undefined,
    createdFrom: parseDate(search.get("from")),
    createdTo: parseDate(search.get("to")),
    idRange,
    input: inputFilter.clauses,
    answeredBy: search.get("answered")?.trim() || undefined,
    after: cursor ? decodeCursor(cursor) : undefined,
    limit: TASK_PAGE_SIZE + 1,
  });
  const page = rows.slice(0, TASK_PAGE_SIZE);
  const last = page.at(-1);
  return {
    items: page.map((row) => ({
      id: row.id,
      tenantSlug: row.tenant_slug,
      tool: row.tool_name,
      workflowKey: row.workflow_key,
      status: row.status,
      waitDetail: row.wait_detail,
      progress: row.progress,
      leaseOwner: row.lease_owner,
      leaseExpiresAt: iso(row.lease_expires_at),
      statusMessage: row.status_message,
      failureCause: row.failure_code ? { code: row.failure_code, message: row.failure_message ?? "" } : null,
      handleExpired: row.handle_expired,
      createdAt: iso(row.created_at) as string,
      updatedAt: iso(row.updated_at) as string,
      finishedAt: iso(row.finished_at),
    })),
    next: rows.length > TASK_PAGE_SIZE && last ? encodeCursor({ createdAt: iso(last.created_at) as string, id: last.id }) : null,
    workers: rows[0]?.online_workers ?? [],
    serverNow: iso(rows[0]?.db_now ?? new Date()) as string,
  };
}
