import postgres from "postgres";

/** postgres.Sql, as client.ts names it (not imported from there: client.ts imports this module). */
type Sql = postgres.Sql;

/**
 * What sits between a process and PostgreSQL (RUNIFOLD_DB_POOLER, DESIGN §8 "Database"):
 *  - `none`: a direct connection (the default);
 *  - `session`: a session-mode pooler (PgBouncer pool_mode=session, RDS Proxy, Supavisor's session
 *    port): a client keeps one server session for as long as it is connected, so everything works
 *    as direct — except that the pooler only passes the startup parameters it tracks;
 *  - `transaction`: a transaction-mode pooler (PgBouncer pool_mode=transaction, a Neon pooled
 *    endpoint, Supavisor's transaction port): each transaction may run on another server session,
 *    so nothing may rely on a session — no named prepared statements (a statement parsed on one
 *    session is executed on another), no LISTEN (the session that listens is handed to another
 *    client after the statement), no session advisory lock, no session SET.
 */
export const DB_POOLER_MODES = ["none", "session", "transaction"] as const;
export type DbPoolerMode = (typeof DB_POOLER_MODES)[number];

export type DbPooler = {
  mode: DbPoolerMode;
  /**
   * RUNIFOLD_DIRECT_DATABASE_URL: the same database without the pooler, for what needs a session of
   * its own (LISTEN, the retention cleaner's session lock). Transaction mode only; without it those
   * fall back to polling and to the retention fence alone.
   */
  directUrl?: string;
};

/** The pool options a mode needs: transaction mode sends every statement unnamed. */
export function poolerPoolOptions(pooler: DbPooler | undefined): { prepare?: false } {
  return pooler?.mode === "transaction" ? { prepare: false } : {};
}

/**
 * Where session-scoped work goes for each pool createDb made: the pool itself (direct or session
 * pooling), a direct pool (transaction pooling with a direct URL), or null (transaction pooling
 * without one). A pool made elsewhere (tests, tools) is its own session pool.
 */
const sessionPools = new WeakMap<Sql, Sql | null>();

export function registerSessionPool(sql: Sql, pooler: DbPooler | undefined, name: string): Sql | undefined {
  if (pooler?.mode !== "transaction") return undefined;
  if (!pooler.directUrl) {
    sessionPools.set(sql, null);
    return undefined;
  }
  // max 1: nothing queries it in bulk; sql.listen and the retention lock each open a connection of
  // their own from its options.
  const direct = postgres(pooler.directUrl, {
    max: 1,
    idle_timeout: 30,
    connect_timeout: 10,
    onnotice: () => {},
    connection: { application_name: `${name}-direct` },
  });
  sessionPools.set(sql, direct);
  return direct;
}

/** The pool to LISTEN or hold a session lock on for `sql`, or undefined when there is none (poll instead). */
export function sessionPool(sql: Sql): Sql | undefined {
  const found = sessionPools.get(sql);
  return found === undefined ? sql : (found ?? undefined);
}
