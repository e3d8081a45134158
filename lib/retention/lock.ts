import { type SqlHandle, sessionPool } from "@runifold/store";
import postgres from "postgres";

/**
 * The session advisory lock key of the retention cleaner, derived in SQL from a readable name so
 * an operator can find it in pg_locks (`objid` of the bigint key) without a magic number in code.
 */
const LOCK_KEY_SQL = "hashtextextended('runifold.retention', 0)";

export type RetentionLock = {
  /**
   * The backend holding the lock (tests terminate it to simulate a partitioned cleaner); 0 when no
   * session lock could be taken (a transaction pooler without a direct URL: the fence alone).
   */
  backendPid: number;
  release(): Promise<void>;
};

/**
 * A one-connection client to the same database as `sql`, for the lock alone. Not `sql.reserve()`:
 * postgres.js 3.4 writes to a reserved (or transaction) connection's socket after the server has
 * closed it — an uncaught TypeError that would take a worker down exactly when the lock is lost —
 * and `release()` would hand that dead connection back to the pool. A plain `max: 1` client just
 * reconnects. Host and port arrays are passed as parsed (multi-host, IPv6), which the runtime
 * accepts although the typings only declare a string.
 */
function lockClient(sql: postgres.Sql): postgres.Sql {
  const o = sql.options;
  return postgres({
    host: o.host as unknown as string,
    port: o.port as unknown as number,
    path: o.path || undefined,
    database: o.database,
    user: o.user,
    pass: o.pass as unknown as string,
    ssl: o.ssl,
    connect_timeout: o.connect_timeout,
    max: 1,
    idle_timeout: 0,
    max_lifetime: null,
    fetch_types: false,
    onnotice: () => {},
    connection: { ...o.connection, application_name: "runifold-retention-lock" },
  });
}

/**
 * Tries the cleaner lock on its own connection. A session lock (not a transaction lock) so it
 * lives as long as the cleaner, across its many short batch transactions, without an open
 * transaction. If the connection dies, Postgres drops the lock and another cleaner may start —
 * which is why every batch also checks the fencing epoch (see purge-batch.ts): losing the lock
 * must never let a stale cleaner delete.
 *
 * Behind a transaction-mode pooler (RUNIFOLD_DB_POOLER=transaction) a session lock through the
 * pooler would stay on whichever server session ran it — held for ever, or re-granted to another
 * cleaner sharing that session — so it is taken on the direct URL's pool; without one there is no
 * session to hold it and the fence alone decides: every pass takes a new epoch, so a newer pass
 * stops an older one at its next batch ("fenced") and no two ever delete under the same epoch.
 */
export async function tryRetentionLock(sql: postgres.Sql): Promise<RetentionLock | undefined> {
  const session = sessionPool(sql);
  if (!session) return { backendPid: 0, release: async () => {} };
  const conn = lockClient(session);
  try {
    const rows = await conn.unsafe<{ locked: boolean; pid: number }[]>(
      `SELECT pg_try_advisory_lock(${LOCK_KEY_SQL}) AS locked, pg_backend_pid() AS pid`,
    );
    const row = rows[0];
    if (!row?.locked) {
      await conn.end({ timeout: 1 });
      return undefined;
    }
    return {
      backendPid: row.pid,
      async release() {
        // Ending the session releases the lock; the explicit unlock just makes it immediate. If the
        // session is already gone this reconnects and unlocks nothing (a WARNING, ignored).
        await conn.unsafe(`SELECT pg_advisory_unlock(${LOCK_KEY_SQL})`).catch(() => undefined);
        await conn.end({ timeout: 1 }).catch(() => undefined);
      },
    };
  } catch (error) {
    await conn.end({ timeout: 1 }).catch(() => undefined);
    throw error;
  }
}

/**
 * Takes the next fencing epoch. Only called while holding the lock, so epochs are handed out one
 * cleaner at a time; the UPDATE waits for any in-flight batch of the previous holder (which holds
 * the fence row FOR SHARE), so once this returns no older epoch can commit another delete.
 */
export async function bumpFence(sql: SqlHandle, holder: string): Promise<number> {
  const rows = await sql.unsafe<{ epoch: number }[]>(
    "UPDATE retention_fence SET epoch = epoch + 1, holder = $1, acquired_at = now() WHERE id = 1 RETURNING epoch::float8 AS epoch",
    [holder],
  );
  const row = rows[0];
  if (!row) throw new Error("retention_fence row 1 is missing (migration 0004 not applied?)");
  return row.epoch;
}

/** The current epoch, without taking a new one (dry runs delete nothing, so they fence nobody). */
export async function currentFenceEpoch(sql: SqlHandle): Promise<number> {
  const rows = await sql.unsafe<{ epoch: number }[]>("SELECT epoch::float8 AS epoch FROM retention_fence WHERE id = 1");
  return rows[0]?.epoch ?? 0;
}
