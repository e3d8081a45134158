/**
 * Which store errors are transient: an allow-list of connection-level failures. Only these end an
 * attempt without touching the run (it is retried once the store answers); every other error —
 * bad data, a bug, a TypeError with no code at all — is not transient and fails the step or the
 * run at once with a stored cause (docs/architecture.md, "Attempts, retries, timeouts, idempotency").
 */
const DRIVER_CONNECTION_CODES = new Set([
  // postgres.js
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  // Node sockets and DNS
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

export function isTransientStoreError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return false;
  if (DRIVER_CONNECTION_CODES.has(code)) return true;
  // SQLSTATE 08: connection exception; 57P: operator intervention (shutdown, restart);
  // 53: insufficient resources (too many connections); 40001/40P01: serialization failure, deadlock;
  // 25006 read_only_sql_transaction: the host answering takes no writes — a hot standby the pool
  // landed on while a failover has no primary yet (postgres.js's `read-write` check accepts one), or
  // a promoted node the HA manager still holds read-only (pg_auto_failover's stop_replication). The
  // engine never opens a read-only transaction itself, so this is the store's state, never the run's.
  return /^(08|53)[0-9A-Z]{3}$|^57P[0-9A-Z]{2}$/.test(code) || code === "40001" || code === "40P01" || code === "25006";
}
