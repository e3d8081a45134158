import { inTransaction, jsonParam, type SqlHandle } from "@runifold/store";
import { CHANNELS } from "../channels";
import { TERMINAL_STATUSES_SQL } from "../states";
import type { WorkflowResult } from "../workflow";
import type { PublicError } from "./finish-run";
import { lockLeasedRun } from "./transaction";
import { LEASE_GUARD, type Lease, RENEW_AND_PROGRESS } from "./types";

/** How a child ended, as the parent's history records it (step `child-result:<key>`). */
export type ChildOutcome =
  | { status: "completed"; result: WorkflowResult }
  | { status: "failed"; error: PublicError }
  | { status: "cancelled"; reason?: string };

/** One `ctx.child(...).result()` waiting: its history key (without prefix), the child's task ID, its position. */
export type ChildWait = { key: string; taskId: string; seq: number | null };

export type ChildrenWaitOutcome = { kind: "checked"; ended: Map<string, ChildOutcome>; parked: boolean } | { kind: "lease_lost" };

/**
 * The durable half of `ctx.child(...).result()`, for every result the workflow awaits at this point
 * (a `Promise.all` fan-out arrives as one batch). Under the parent's row lock — which a child's end
 * takes too before it wakes the parent (trigger runs_child_ended, migration 0039), so a child ending
 * now is either seen here or sees the park — each child that has ended gets its outcome recorded in the
 * parent's history; if any is still running, the parent parks in `waiting_signal` with
 * `wait_detail.children` (no slot held, no timer: the first child to end queues it again).
 */
export async function awaitChildren(sql: SqlHandle, lease: Lease, waits: ChildWait[]): Promise<ChildrenWaitOutcome> {
  return inTransaction(sql, async (tx) => {
    if (!(await lockLeasedRun(tx, lease))) return { kind: "lease_lost" } as const;
    const rows = await tx.unsafe<{ id: string; status: string; payload: Record<string, unknown> | null }[]>(
      `SELECT r.id, r.status, CASE WHEN r.status IN ${TERMINAL_STATUSES_SQL} THEN
                (SELECT e.payload FROM run_events e WHERE e.run_id = r.id AND e.type = r.status ORDER BY e.id DESC LIMIT 1)
              END AS payload
       FROM runs r WHERE r.id = ANY($1::uuid[]) AND r.parent_run_id = $2`,
      [waits.map((wait) => wait.taskId), lease.runId],
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    const ended = new Map<string, ChildOutcome>();
    const running: string[] = [];
    for (const wait of waits) {
      const outcome = outcomeOf(byId.get(wait.taskId));
      if (outcome) ended.set(wait.key, outcome);
      else running.push(wait.taskId);
    }
    const recorded = waits.filter((wait) => ended.has(wait.key));
    if (recorded.length > 0) {
      // Under the row lock taken above the lease cannot move: these rows are written.
      await tx.unsafe(
        `WITH renewed AS (
           UPDATE runs SET checkpoints = checkpoints + 1, ${RENEW_AND_PROGRESS}
           WHERE id = $1 AND ${LEASE_GUARD} RETURNING id
         )
         INSERT INTO run_steps (run_id, key, output, seq)
         SELECT renewed.id, 'child-result:' || i.key, i.output::jsonb, i.seq
         FROM renewed, unnest($5::text[], $6::text[], $7::int[]) AS i(key, output, seq)
         ON CONFLICT (run_id, key) DO NOTHING`,
        [
          lease.runId,
          lease.workerId,
          lease.attempt,
          lease.leaseMs,
          recorded.map((wait) => wait.key),
          recorded.map((wait) => jsonParam(ended.get(wait.key))),
          recorded.map((wait) => wait.seq),
        ],
      );
    }
    if (running.length === 0) return { kind: "checked", ended, parked: false } as const;
    await tx.unsafe(
      `WITH parked AS (
         UPDATE runs SET status = 'waiting_signal', claimable_at = NULL, lease_owner = NULL, lease_expires_at = NULL,
                checkpoints = checkpoints + 1, lost_attempts = 0, updated_at = now(),
                wait_detail = jsonb_build_object('children', jsonb_build_object('taskIds', $4::text::jsonb, 'since', now()))
         WHERE id = $1 AND ${LEASE_GUARD} RETURNING id
       ), history AS (
         INSERT INTO run_events (run_id, type, payload)
         SELECT id, 'waiting_children', jsonb_build_object('taskIds', $4::text::jsonb) FROM parked
       )
       SELECT pg_notify('${CHANNELS.task}', id::text) FROM parked`,
      [lease.runId, lease.workerId, lease.attempt, jsonParam(running)],
    );
    return { kind: "checked", ended, parked: true } as const;
  });
}

/** The child's outcome from its row and terminal event; undefined while it runs. A purged child reads as failed. */
function outcomeOf(row: { status: string; payload: Record<string, unknown> | null } | undefined): ChildOutcome | undefined {
  if (!row) return { status: "failed", error: { code: -32603, message: "the child task no longer exists" } };
  const payload = row.payload ?? {};
  switch (row.status) {
    case "completed":
      return { status: "completed", result: (payload.result as WorkflowResult | undefined) ?? { content: [] } };
    case "failed":
      return {
        status: "failed",
        error: (payload.error as PublicError | undefined) ?? { code: -32603, message: "the child task failed" },
      };
    case "cancelled":
      return { status: "cancelled", ...(typeof payload.reason === "string" ? { reason: payload.reason } : {}) };
    default:
      return undefined;
  }
}
