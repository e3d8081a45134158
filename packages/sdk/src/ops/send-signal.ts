import { inTransaction, type SqlHandle } from "@runifold/store";
import { CHANNELS } from "../channels";
import { encodeJson } from "../json-value";
import { DEFAULT_LIMITS } from "../limits";
import { isTerminal, type RunStatus } from "../states";
import { requireTenantId } from "./require-tenant";

export type SendSignalParams = {
  runId: string;
  name: string;
  payload?: unknown;
  maxPayloadBytes?: number;
  /** Who sent it (`operator:<id>`, `key:<id>`, …), stored on the `signal_sent` event for the task's history. */
  actor?: string;
};

/**
 * Delivers a named signal to a run of `tenantId`. The run row is locked first so the signal and a
 * concurrent suspension (see suspend-for-signal.ts) serialise: either the waiter sees the signal,
 * or the signal sees the waiter and requeues it. Returns false for an unknown or terminal run, and
 * for another tenant's run exactly as for an unknown one. A payload that is not JSON or is over
 * `maxPayloadBytes` (limits.ts) is refused before anything is written, a missing tenant before any
 * query (require-tenant.ts).
 */
export async function sendSignalForTenant(sql: SqlHandle, params: SendSignalParams & { tenantId: string }): Promise<boolean> {
  requireTenantId(params.tenantId, "sendSignalForTenant");
  return signalWhere(sql, params, params.tenantId);
}

/**
 * sendSignalForTenant for a run of any tenant: the CLI's admin commands, tenant-less engine
 * internals, and a backend that holds the store itself (it is the admin of its own runs).
 */
export async function sendSignalAsAdmin(sql: SqlHandle, params: SendSignalParams): Promise<boolean> {
  return signalWhere(sql, params, null);
}

/** @deprecated The optional-tenant form (security review L10: no tenant meant every tenant); use sendSignalForTenant or sendSignalAsAdmin. */
export async function sendSignal(sql: SqlHandle, params: SendSignalParams & { tenantId?: string }): Promise<boolean> {
  const { tenantId, ...rest } = params;
  return tenantId === undefined ? sendSignalAsAdmin(sql, rest) : sendSignalForTenant(sql, { ...rest, tenantId });
}

/** The one transaction of both forms; `tenantId` null only through sendSignalAsAdmin. */
async function signalWhere(sql: SqlHandle, params: SendSignalParams, tenantId: string | null): Promise<boolean> {
  const payload = encodeJson(
    params.payload,
    `signal "${params.name}" payload`,
    params.maxPayloadBytes ?? DEFAULT_LIMITS.signalPayloadBytes,
  );
  const run = async (tx: SqlHandle) => {
    const target = await tx.unsafe<{ status: RunStatus }[]>(
      "SELECT status FROM runs WHERE id = $1 AND ($2::uuid IS NULL OR tenant_id = $2::uuid) FOR UPDATE",
      [params.runId, tenantId],
    );
    const status = target[0]?.status;
    if (!status || isTerminal(status)) return false;
    await tx.unsafe(
      `WITH sent AS (INSERT INTO run_signals (run_id, name, payload) VALUES ($1, $2, $3::text::jsonb) RETURNING run_id)
       INSERT INTO run_events (run_id, type, payload)
       SELECT run_id, 'signal_sent', jsonb_strip_nulls(jsonb_build_object('name', $2::text, 'actor', $4::text)) FROM sent`,
      [params.runId, params.name, payload.text, params.actor ?? null],
    );
    await tx.unsafe(
      `UPDATE runs SET status = 'queued', claimable_at = now(), updated_at = now()
       WHERE id = $1 AND status = 'waiting_signal' AND wait_detail->'signal'->>'name' = $2
       RETURNING pg_notify('${CHANNELS.wake}', workflow_key), pg_notify('${CHANNELS.task}', id::text)`,
      [params.runId, params.name],
    );
    return true;
  };
  return inTransaction(sql, run);
}
