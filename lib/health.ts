import { migrationsApplied, type Sql } from "@runifold/store";
import { ONLINE_WORKER_SQL } from "./tasks";

export type Health = {
  /** `read-only`: the server answering is a standby or in recovery (no host takes writes, e.g. mid-failover). */
  database: "ok" | "read-only" | "unreachable";
  migrations: "applied" | "pending";
  workers: { online: number };
  ok: boolean;
  /** Why the deployment is not ready, in words an operator can act on; only when `ok` is false. */
  reason?: string;
};

/** How long a probe may take before the database counts as unreachable. */
const PROBE_TIMEOUT_MS = 3_000;

/**
 * Readiness of this deployment: the database answers and takes writes, every shipped migration is
 * applied, and how many workers heartbeated recently. Zero workers is reported but does not make the
 * app unready: runs queue durably until a worker comes. Writability is part of the probe because a
 * server that answers reads but refuses writes (a standby, or during a failover a node not yet
 * promoted) cannot create or advance a single task.
 */
export async function checkHealth(sql: Sql): Promise<Health> {
  let state: { recovery: boolean; readOnly: boolean } | undefined;
  try {
    const [row] = await withTimeout(
      sql<{ recovery: boolean; read_only: string }[]>`
        SELECT pg_is_in_recovery() AS recovery, current_setting('transaction_read_only') AS read_only`,
    );
    state = row && { recovery: row.recovery, readOnly: row.read_only === "on" };
  } catch (error) {
    return unreachable(error);
  }
  if (!state || state.recovery || state.readOnly)
    return {
      database: "read-only",
      migrations: "pending",
      workers: { online: 0 },
      ok: false,
      reason: state?.recovery
        ? "the database answering is a standby (in recovery): no host takes writes, e.g. a failover in progress"
        : "the database answers but refuses writes (transaction_read_only is on)",
    };
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
  const health: Health = { database: "ok", migrations: applied ? "applied" : "pending", workers: { online }, ok: applied };
  return applied ? health : { ...health, reason: "migrations pending: run the migrate job" };
}

/**
 * Unreachable, with the error's kind (a code such as ECONNREFUSED, or a timeout) but never its
 * message: this answer is public, and a driver message can name hosts and logins.
 */
function unreachable(error: unknown): Health {
  const code = (error as { code?: unknown } | undefined)?.code;
  const kind =
    typeof code === "string" && /^[A-Z0-9_]{2,40}$/.test(code)
      ? code
      : error instanceof Error && error.message.startsWith("health probe timed out")
        ? "no answer within 3 s"
        : "connection failed";
  return {
    database: "unreachable",
    migrations: "pending",
    workers: { online: 0 },
    ok: false,
    reason: `the database is unreachable (${kind})`,
  };
}

/** The GET /api/health response: 200 when ready, 503 otherwise; never cached. */
export async function healthResponse(getSql: () => Sql): Promise<Response> {
  let health: Health;
  try {
    health = await checkHealth(getSql());
  } catch (error) {
    health = unreachable(error);
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
