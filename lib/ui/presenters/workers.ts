import "server-only";
import type { SqlHandle } from "@runifold/store";
import type { Operator } from "../../auth";
import { listOnlineWorkers } from "../../tasks";

export type WorkerItem = {
  id: string;
  host: string;
  workflows: string[];
  concurrency: string;
  startedAt: string;
  heartbeatAt: string;
  leases: number;
};

/** Online workers; lease counts cover only the operator's tenants. */
export async function presentWorkers(sql: SqlHandle, operator: Operator): Promise<WorkerItem[]> {
  const rows = await listOnlineWorkers(sql, operator.tenantIds);
  return rows.map((row) => ({
    id: row.id,
    host: `${row.hostname} (pid ${row.pid})`,
    workflows: [...row.workflows].sort(),
    concurrency: row.concurrency,
    startedAt: new Date(row.started_at).toISOString(),
    heartbeatAt: new Date(row.heartbeat_at).toISOString(),
    leases: row.leases,
  }));
}
