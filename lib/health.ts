import { migrationsApplied, type Sql } from "@runifold/store";
import { ONLINE_WORKER_SQL } from "./tasks";

export type Health = {
  database: "ok" | "unreachable";
  migrations: "applied" | "pending";
  workers: { online: number };
  ok: boolean;
};

/** How long a probe may take before the database counts as unreachable. */
const PROBE_TIMEOUT_MS = 3_000;

/**
 * Readiness of this deployment: the database answers, every shipped migration is applied, and how
 * many workers heartbeated recently. Zero workers is reported but does not make the app unready:
 * runs queue durably until a worker comes.
 */
export async function checkHealth(sql: Sql): Promise<Health> {
  const down: Health = { database: "unreachable", migrations: "pending", workers: { online: 0 }, ok: false };
  try {
    await withTimeout(sql`SELECT 1`);
  } catch {
    return down;
  }
  let applied = false;
  let online = 0;
  try {
    applied = await withTimeout(migrationsApplied(sql));
    if (applied) {
      const rows = await withTimeout(
        sql.unsafe(`SELECT count(*)::int AS n FROM worker_registrations w WHERE ${ONLINE_WORKER_SQL}`),
      );
      online = Number(rows[0]?.n ?? 0);
    }
  } catch {
    // Reachable but not (fully) migrated: report what we know.
  }
  return { database: "ok", migrations: applied ? "applied" : "pending", workers: { online }, ok: applied };
}

/** The GET /api/health response: 200 when ready, 503 otherwise; never cached. */
export async function healthResponse(getSql: () => Sql): Promise<Response> {
  let health: Health;
  try {
    health = await checkHealth(getSql());
  } catch {
    health = { database: "unreachable", migrations: "pending", workers: { online: 0 }, ok: false };
  }
  return Response.json(health, { status: health.ok ? 200 : 503, headers: { "cache-control": "no-store" } });
}

function withTimeout<T>(promise: Promise<T>, ms = PROBE_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`health probe timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
