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
