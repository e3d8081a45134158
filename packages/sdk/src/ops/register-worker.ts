import type { SqlHandle } from "@runifold/store";

/** Announces (or re-announces) a worker and the workflow versions it serves. */
export async function registerWorker(
  sql: SqlHandle,
  params: { workerId: string; hostname: string; pid: number; workflows: string[]; concurrency: number },
): Promise<void> {
  await sql.unsafe(
    `INSERT INTO worker_registrations (id, hostname, pid, workflows, concurrency, started_at, heartbeat_at)
     VALUES ($1, $2, $3, $4::text[], $5, now(), now())
     ON CONFLICT (id) DO UPDATE SET heartbeat_at = now(), stopped_at = NULL, workflows = EXCLUDED.workflows`,
    [params.workerId, params.hostname, String(params.pid), params.workflows, String(params.concurrency)],
  );
}

export async function heartbeatWorker(sql: SqlHandle, workerId: string): Promise<void> {
  await sql.unsafe("UPDATE worker_registrations SET heartbeat_at = now() WHERE id = $1", [workerId]);
}

export async function markWorkerStopped(sql: SqlHandle, workerId: string): Promise<void> {
  await sql.unsafe("UPDATE worker_registrations SET stopped_at = now() WHERE id = $1", [workerId]);
}

/** A worker is online when it heartbeated within this window and has not said it stopped. */
export const WORKER_ONLINE_WINDOW_MS = 15_000;

/**
 * The fleet's slots: every online worker's concurrency, summed (the default tenant cap is a share of
 * it, tenant-share.ts). worker_registrations keeps only recent workers (pruned by the sweep), so
 * this reads a few rows.
 */
export async function fleetSlots(sql: SqlHandle): Promise<number> {
  const rows = await sql.unsafe<{ slots: number }[]>(
    `SELECT coalesce(sum(concurrency::int), 0)::int AS slots FROM worker_registrations
     WHERE stopped_at IS NULL AND heartbeat_at > now() - make_interval(secs => $1 / 1000.0)`,
    [WORKER_ONLINE_WINDOW_MS],
  );
  return rows[0]?.slots ?? 0;
}

/** How long a registration is kept after its last heartbeat (the workers page and diagnosis read recent ones only). */
export const WORKER_REGISTRATION_RETENTION_MS = 7 * 24 * 60 * 60_000;

/**
 * Deletes registrations whose last heartbeat is older than WORKER_REGISTRATION_RETENTION_MS: one row
 * per worker start (a random id) was kept forever (review 3, E10). Stopped or crashed alike; an
 * online worker heartbeats every few seconds, so it is never one of them. Run by every worker's slow
 * sweep. Returns how many went.
 */
export async function pruneWorkerRegistrations(sql: SqlHandle): Promise<number> {
  const result = await sql.unsafe(
    "DELETE FROM worker_registrations WHERE heartbeat_at < now() - make_interval(secs => $1 / 1000.0)",
    [WORKER_REGISTRATION_RETENTION_MS],
  );
  return result.count;
}
