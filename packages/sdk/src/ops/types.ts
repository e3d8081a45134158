import type { FailureCause } from "../failure-cause";
import type { RunStatus } from "../states";

/** Identifies one lease: a worker's hold on a run for one attempt. Every write while leased checks it. */
export type Lease = { runId: string; workerId: string; attempt: number; leaseMs: number };

export type RunRow = {
  id: string;
  tenant_id: string;
  route_id: string | null;
  workflow_name: string;
  workflow_version: number;
  workflow_key: string;
  status: RunStatus;
  input: unknown;
  created_by_key_id: string | null;
  origin: string;
  ttl_ms: number | null;
  poll_interval_ms: number;
  claimable_at: Date | null;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  attempt: number;
  lost_attempts: number;
  checkpoints: number;
  deadline_at: Date | null;
  failure: FailureCause | null;
  wait_detail: WaitDetail | null;
  progress: { progress: number; total?: number; message?: string } | null;
  /** The creator's trace context (W3C propagation fields), when tracing was on at creation. */
  trace_context: Record<string, string> | null;
  status_message: string | null;
  cancel_requested_at: Date | null;
  /** The run that started this one with ctx.child, if one did. */
  parent_run_id: string | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
};

export type WaitDetail =
  | { timer: { key: string; wakeAt: string } }
  | { signal: { name: string; since: string; deadline?: string } }
  | { input: { keys: string[]; since: string; deadline?: string } }
  /** ctx.child(...).result() (ops/await-children.ts): the task IDs of the children it waits for. */
  | { children: { taskIds: string[]; since: string } }
  /** A queued run set aside while its concurrency key is full (migration 0043): claimable once a holder ends. */
  | { concurrency: { key: string; limit: number } }
  | {
      /** ctx.requestApproval (ops/await-approval.ts): the policy in words, approvals so far of the quorum, its clock. */
      approval: {
        key: string;
        since: string;
        deadline?: string;
        escalatesAt?: string;
        approvers?: string;
        quorum?: number;
        approved?: number;
      };
    };

/** The run columns every op returns (bigint columns as numbers), optionally qualified by a table alias. */
export function runColumns(alias?: string): string {
  const q = alias ? `${alias}.` : "";
  return `${q}id, ${q}tenant_id, ${q}route_id, ${q}workflow_name, ${q}workflow_version, ${q}workflow_key, ${q}status,
  ${q}input, ${q}created_by_key_id, ${q}origin, ${q}ttl_ms::float8 AS ttl_ms, ${q}poll_interval_ms, ${q}claimable_at,
  ${q}lease_owner, ${q}lease_expires_at, ${q}attempt, ${q}lost_attempts, ${q}checkpoints, ${q}deadline_at, ${q}failure,
  ${q}wait_detail, ${q}progress, ${q}trace_context, ${q}status_message, ${q}cancel_requested_at, ${q}parent_run_id, ${q}created_at, ${q}updated_at, ${q}finished_at`;
}

/** The lease guard every write of a leased run carries. */
export const LEASE_GUARD = "status = 'leased' AND lease_owner = $2 AND attempt = $3";

/**
 * SET clauses of every leased write that records progress: the lease is renewed and the run's
 * count of attempts lost in a row starts again (parameter $4 is the lease in ms). A held lease is
 * in no claim index (`claimable_at` NULL, claim-runs.ts), so this changes no indexed column.
 */
export const RENEW_AND_PROGRESS = `lost_attempts = 0, updated_at = now(),
  lease_expires_at = now() + make_interval(secs => $4 / 1000.0), claimable_at = NULL`;
