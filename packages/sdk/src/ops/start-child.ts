import { inTransaction, jsonParam, type SqlHandle } from "@runifold/store";
import type { AnyWorkflow } from "../workflow";
import { createRun } from "./create-run";
import { lockLeasedRun } from "./transaction";
import { LEASE_GUARD, type Lease, RENEW_AND_PROGRESS } from "./types";

/** What the parent's history records for a started child (step `child:<key>`). */
export type ChildStart = { taskId: string; workflow: string };

export type ChildStartOutcome = { kind: "started" | "recorded"; start: ChildStart } | { kind: "lease_lost" };

export type StartChildParams = {
  /** The call's history key without its prefix: `invoice`, or `repeat:invoice#2` in a loop. */
  key: string;
  seq: number | null;
  tenantId: string;
  workflowName: string;
  workflowVersion: number;
  input: unknown;
  /** When this worker serves the child's workflow: its input is checked before anything is written. */
  definition?: AnyWorkflow;
};

/**
 * The durable half of ctx.child: under the parent's lease and row lock, the child run is created and
 * the start is recorded in the parent's history (step `child:<key>`, with its position) in ONE
 * transaction, so either both exist or neither does. A start re-run after a crash or a resume finds
 * the recorded step and returns the same task ID; the unique index on (parent_run_id, parent_key) is
 * the second guard (a child created for this key is adopted, never duplicated). The child is of the
 * parent's tenant and credential (the key that follows the parent over MCP may follow the child) and
 * gets the parent's handle lifetime.
 */
export async function startChild(sql: SqlHandle, lease: Lease, params: StartChildParams): Promise<ChildStartOutcome> {
  const stepKey = `child:${params.key}`;
  return inTransaction(sql, async (tx) => {
    if (!(await lockLeasedRun(tx, lease))) return { kind: "lease_lost" } as const;
    const [recorded] = await tx.unsafe<{ output: ChildStart }[]>("SELECT output FROM run_steps WHERE run_id = $1 AND key = $2", [
      lease.runId,
      stepKey,
    ]);
    if (recorded) return { kind: "recorded", start: recorded.output } as const;
    const [parent] = await tx.unsafe<{ created_by_key_id: string | null; ttl_ms: number | null; generation: number }[]>(
      "SELECT created_by_key_id, ttl_ms::float8 AS ttl_ms, generation FROM runs WHERE id = $1",
      [lease.runId],
    );
    // A generation after a continue-as-new (ops/continue-as-new.ts) may reuse a key of an earlier
    // one: its children are keyed `<key>@g<generation>`, so the earlier child is never adopted.
    const parentKey = parent?.generation ? `${params.key}@g${parent.generation}` : params.key;
    const [adopted] = await tx.unsafe<{ id: string; workflow_key: string }[]>(
      "SELECT id, workflow_key FROM runs WHERE parent_run_id = $1 AND parent_key = $2",
      [lease.runId, parentKey],
    );
    const child =
      adopted ??
      (await createRun(tx, {
        tenantId: params.tenantId,
        workflowName: params.workflowName,
        workflowVersion: params.workflowVersion,
        input: params.input,
        definition: params.definition,
        createdByKeyId: parent?.created_by_key_id ?? null,
        ttlMs: parent?.ttl_ms ?? null,
        origin: "engine",
        parent: { runId: lease.runId, key: parentKey },
      }));
    const start: ChildStart = { taskId: child.id, workflow: child.workflow_key };
    const written = await tx.unsafe(
      `WITH renewed AS (
         UPDATE runs SET checkpoints = checkpoints + 1, ${RENEW_AND_PROGRESS}
         WHERE id = $1 AND ${LEASE_GUARD} RETURNING id
       ), step AS (
         INSERT INTO run_steps (run_id, key, output, seq) SELECT id, $5, $6::text::jsonb, $7 FROM renewed
         ON CONFLICT (run_id, key) DO NOTHING RETURNING run_id
       )
       INSERT INTO run_events (run_id, type, payload)
       SELECT run_id, 'child_started', jsonb_build_object('key', $8::text, 'taskId', $9::text, 'workflow', $10::text) FROM step
       RETURNING 1`,
      [
        lease.runId,
        lease.workerId,
        lease.attempt,
        lease.leaseMs,
        stepKey,
        jsonParam(start),
        params.seq,
        params.key,
        start.taskId,
        start.workflow,
      ],
    );
    // Under the row lock the lease cannot have moved; should it have, nothing of this may stay.
    if (written.length === 0) throw new Error(`start of child ${params.key} not recorded: the lease moved under its lock`);
    return { kind: "started", start } as const;
  });
}
