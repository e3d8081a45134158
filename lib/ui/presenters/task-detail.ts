import "server-only";
import type { FailureCause, InputRequest, RunStatus, WaitDetail } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import type { Operator } from "../../auth";
import {
  findTaskDetail,
  findTombstoneInTenants,
  listTaskEvents,
  listTaskSteps,
  type RunEventRow,
  readChildLinks,
  readRerunLinks,
  readStepOutput,
} from "../../tasks";
import { formatMs } from "./retention";
import { presentSteps, STEP_LIMIT, STEP_PREVIEW_CHARS, type TaskStepItem } from "./task-steps";

export const EVENT_PAGE_SIZE = 20;

/** One history line; `actor` is the raw actor label (`operator:<id>`, `key:<id>`, …) when the summary names a person or key by name. */
export type TaskEventItem = { id: number; type: string; at: string; summary: string; actor?: string };

export type TaskDetail = {
  /** Always false here; a purged task is a PurgedTask (the detail API answers either, told apart by this field). */
  purged: false;
  id: string;
  tenantId: string;
  tenantSlug: string;
  tool: string | null;
  routeRevision: number | null;
  workflowKey: string;
  status: RunStatus;
  origin: string;
  attempt: number;
  input: unknown;
  progress: { progress: number; total?: number; message?: string } | null;
  waitDetail: WaitDetail | null;
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
  statusMessage: string | null;
  handleExpired: boolean;
  ttlMs: number | null;
  terminal: { result?: unknown; error?: { code: number; message: string; data?: unknown }; reason?: string } | null;
  /**
   * Why the run failed, as the engine stored it (code, message, step, attempt): for operators of the
   * run's tenant only — the client's error never carries the message (packages/sdk/src/failure-cause.ts).
   */
  failureCause: FailureCause | null;
  pendingInputs: Record<string, InputRequest> | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
  workers: { id: string; workflows: string[] }[];
  serverNow: string;
  events: TaskEventItem[];
  /** Cursor for older history, if there is any. */
  olderThan: number | null;
  /** Memoized steps, timers and signal deliveries in call order, outputs cut to a preview (task-steps.ts). */
  steps: TaskStepItem[];
  /** More durable operations exist than the page lists. */
  stepsTruncated: boolean;
  /** The task this one reran, and the reruns of this one (lib/tasks/rerun-task.ts), newest last. */
  rerunOf: string | null;
  rerunAs: string[];
  /** The task that started this one with ctx.child, and the tasks this one started (lib/tasks/queries/child-links.ts). */
  parentTaskId: string | null;
  childTaskIds: string[];
  /** onFailure's compensation of a cancelled run: the run this one compensates, or this run's compensation runs. */
  compensatesTaskId: string | null;
  compensationTaskIds: string[];
};

const iso = (value: Date | null) => (value ? new Date(value).toISOString() : null);

/**
 * An actor label in words: an operator by the name (or email) the history query resolved, an API key
 * as `API key <id>`, a CLI user as `<user>@<host> (CLI)`; anything else (`timeout`, `seed`, an
 * unresolved `operator:<id>`) as stored.
 */
export function readableActor(label: string, operatorName?: string | null): string {
  if (label.startsWith("operator:") && operatorName) return operatorName;
  if (label.startsWith("key:")) return `API key ${label.slice(4)}`;
  if (label.startsWith("cli:")) return `${label.slice(4)} (CLI)`;
  return label;
}

/** One line per history event: what happened, in words an operator reads at a glance. */
export function summarizeEvent(type: string, payload: unknown, actorName?: string | null): string {
  const p = (payload ?? {}) as Record<string, unknown>;
  const text = (key: string) => (typeof p[key] === "string" || typeof p[key] === "number" ? String(p[key]) : undefined);
  const who = (key: string) => {
    const label = text(key);
    return label === undefined ? undefined : readableActor(label, actorName);
  };
  switch (type) {
    case "input_answered":
      return `input \`${text("key")}\` answered${who("by") ? ` by ${who("by")}` : ""}`;
    case "input_requested":
      return `input requested${text("key") ? `: \`${text("key")}\`` : ""}`;
    case "cancelled":
      return `cancelled${text("reason") ? `: ${text("reason")}` : ""}${who("actor") ? ` (${who("actor")})` : ""}`;
    case "failed":
      return `failed: ${((p.error ?? {}) as { message?: string }).message ?? "error"}`;
    case "log": {
      // ctx.log(message, data): the data as compact JSON, cut short (the line stays one line).
      const data = p.data === undefined ? "" : JSON.stringify(p.data);
      return `log: ${text("message") ?? ""}${data ? ` ${data.length > 300 ? `${data.slice(0, 300)}…` : data}` : ""}`;
    }
    case "rerun_of":
      return `rerun of ${text("taskId")}${who("actor") ? ` (${who("actor")})` : ""}`;
    case "rerun_as":
      return `rerun as ${text("taskId")}${who("actor") ? ` (${who("actor")})` : ""}`;
    case "child_started":
      return `child \`${text("key")}\` started: task ${text("taskId")} (${text("workflow")})`;
    case "child_ended":
      return `child task ${text("taskId")} ${text("status")}`;
    case "waiting_children":
      return `waiting for child tasks ${Array.isArray(p.taskIds) ? p.taskIds.join(", ") : ""}`;
    case "signal_sent":
      return `signal \`${text("name")}\` sent${who("actor") ? ` by ${who("actor")}` : ""}`;
    case "continued_as_new":
      return `continued as new: generation ${text("generation")} begins on a fresh history`;
    case "step_failed":
      return `step \`${text("key")}\` failed (execution ${text("failures")}), retrying in ${text("retryInMs")} ms`;
    default: {
      const details = Object.entries(p)
        .filter(([, value]) => ["string", "number", "boolean"].includes(typeof value))
        .map(([key, value]) => `${key}=${String(value)}`)
        .slice(0, 4);
      return details.length ? `${type.replaceAll("_", " ")} (${details.join(", ")})` : type.replaceAll("_", " ");
    }
  }
}

/** The raw actor label of an event that names one (the history shows it as the line's title). */
function actorOf(row: RunEventRow): { actor?: string } {
  const p = (row.payload ?? {}) as Record<string, unknown>;
  const label = ACTOR_EVENTS.has(row.type) ? (p.by ?? p.actor) : undefined;
  return typeof label === "string" ? { actor: label } : {};
}

// The same types as OPERATOR_ACTOR_ID in lib/tasks/queries/task-detail.ts.
const ACTOR_EVENTS = new Set(["input_answered", "cancelled", "rerun_of", "rerun_as", "signal_sent"]);

function toEventItems(rows: RunEventRow[]): TaskEventItem[] {
  return rows.map((row) => ({
    id: row.id,
    type: row.type,
    at: iso(row.at) as string,
    summary: summarizeEvent(row.type, row.payload, row.actor_name),
    ...actorOf(row),
  }));
}

function olderCursor(rows: RunEventRow[], pageSize: number): number | null {
  return rows.length > pageSize ? (rows[pageSize - 1]?.id ?? null) : null;
}

/** The task detail (undefined = not found, identical for missing and foreign IDs) with its newest history page. */
export async function presentTaskDetail(sql: SqlHandle, operator: Operator, taskId: string): Promise<TaskDetail | undefined> {
  const row = await findTaskDetail(sql, { taskId, scope: operator.tenantIds });
  if (!row) return undefined;
  const scope = operator.tenantIds;
  const [events, stepRows, links, family] = await Promise.all([
    listTaskEvents(sql, { taskId, scope, limit: EVENT_PAGE_SIZE + 1 }),
    listTaskSteps(sql, { taskId, scope, previewChars: STEP_PREVIEW_CHARS, limit: STEP_LIMIT + 1 }),
    readRerunLinks(sql, { taskId, scope }),
    readChildLinks(sql, { taskId, scope }),
  ]);
  return {
    purged: false,
    id: row.id,
    tenantId: row.tenant_id,
    tenantSlug: row.tenant_slug,
    tool: row.tool_name,
    routeRevision: row.route_revision,
    workflowKey: row.workflow_key,
    status: row.status,
    origin: row.origin,
    attempt: row.attempt,
    input: row.input,
    progress: row.progress,
    waitDetail: row.wait_detail,
    leaseOwner: row.lease_owner,
    leaseExpiresAt: iso(row.lease_expires_at),
    statusMessage: row.status_message,
    handleExpired: row.handle_expired,
    ttlMs: row.ttl_ms,
    terminal: row.terminal,
    failureCause: row.failure ?? null,
    pendingInputs: row.pending_inputs,
    createdAt: iso(row.created_at) as string,
    updatedAt: iso(row.updated_at) as string,
    finishedAt: iso(row.finished_at),
    workers: row.online_workers,
    serverNow: iso(row.db_now) as string,
    events: toEventItems(events.slice(0, EVENT_PAGE_SIZE)),
    olderThan: olderCursor(events, EVENT_PAGE_SIZE),
    steps: presentSteps(stepRows.slice(0, STEP_LIMIT), { status: row.status, failure: row.failure ?? null }),
    stepsTruncated: stepRows.length > STEP_LIMIT,
    rerunOf: links.rerunOf,
    rerunAs: links.rerunAs,
    parentTaskId: family.parentTaskId,
    childTaskIds: family.childTaskIds,
    compensatesTaskId: family.compensatesTaskId,
    compensationTaskIds: family.compensationTaskIds,
  };
}

/** What is left of a task the retention cleaner purged: its tombstone, in the detail page's terms. */
export type PurgedTask = {
  purged: true;
  id: string;
  tenantId: string;
  tenantSlug: string;
  tool: string | null;
  routeRevision: number | null;
  workflowKey: string;
  /** The final status the run had when it was purged. */
  status: RunStatus;
  createdAt: string;
  finishedAt: string | null;
  purgedAt: string;
  /** Hex SHA-256 of the final result event's payload, as the cleaner computed it. */
  resultDigest: string | null;
  purgeEpoch: number;
  /** The tenant's retention now (it may have been different when the run was purged). */
  retention: string;
};

/** A task page: the live run, or, once purged, its tombstone. */
export type TaskView = TaskDetail | PurgedTask;

/**
 * The tombstone of a purged task in the operator's tenants (undefined = not found, identical for
 * missing IDs and for another tenant's tombstone: the scope is in the query).
 */
export async function presentPurgedTask(sql: SqlHandle, operator: Operator, taskId: string): Promise<PurgedTask | undefined> {
  const t = await findTombstoneInTenants(sql, { tenantIds: operator.tenantIds, runId: taskId });
  if (!t) return undefined;
  return {
    purged: true,
    id: t.runId,
    tenantId: t.tenantId,
    tenantSlug: t.tenantSlug,
    tool: t.toolName,
    routeRevision: t.routeRevision,
    workflowKey: t.workflowKey,
    status: t.finalStatus,
    createdAt: iso(t.createdAt) as string,
    finishedAt: iso(t.finishedAt),
    purgedAt: iso(t.purgedAt) as string,
    resultDigest: t.resultDigest,
    purgeEpoch: t.purgeEpoch,
    retention: formatMs(t.retentionMs),
  };
}

/**
 * The task page's data: the run if it exists, else its tombstone. The run is read first: the
 * cleaner deletes a run and writes its tombstone in one transaction, so a purge between the two
 * reads still finds one of them.
 */
export async function presentTaskView(sql: SqlHandle, operator: Operator, taskId: string): Promise<TaskView | undefined> {
  return (await presentTaskDetail(sql, operator, taskId)) ?? (await presentPurgedTask(sql, operator, taskId));
}

/** An older page of a task's history (empty for a task the operator cannot see). */
export async function presentTaskEvents(
  sql: SqlHandle,
  operator: Operator,
  taskId: string,
  beforeId: number,
): Promise<{ events: TaskEventItem[]; olderThan: number | null }> {
  const rows = await listTaskEvents(sql, { taskId, scope: operator.tenantIds, beforeId, limit: EVENT_PAGE_SIZE + 1 });
  return { events: toEventItems(rows.slice(0, EVENT_PAGE_SIZE)), olderThan: olderCursor(rows, EVENT_PAGE_SIZE) };
}

/** One step's whole output, pretty-printed ("Show all" on the task page); undefined = not visible. */
export async function presentStepOutput(
  sql: SqlHandle,
  operator: Operator,
  taskId: string,
  key: string,
): Promise<{ key: string; output: string } | undefined> {
  const output = await readStepOutput(sql, { taskId, key, scope: operator.tenantIds });
  return output === undefined ? undefined : { key, output };
}
