import postgres from "postgres";
import { type DbPooler, poolerPoolOptions, registerSessionPool } from "./pooler";

/** A pool: what a process creates once (it can also LISTEN, reserve and end). */
export type Sql = postgres.Sql;

/** A pool or a transaction: every query and op takes the handle it runs on. */
export type SqlHandle = postgres.Sql | postgres.TransactionSql;

/**
 * A pool for one process. Nothing is built at import: the web app, each worker and each test make
 * their own, sized for their job. Queries are plain SQL through postgres.js (drizzle owns the
 * schema and the migrations); we deliberately do not wrap this client in drizzle(), which would
 * replace its date parsers and JSON serialisers for every other user of the pool.
 *
 * `pooler` (RUNIFOLD_DB_POOLER, pooler.ts): behind a transaction-mode pooler every statement goes
 * unnamed, and a direct URL, when given, gets a pool of its own for LISTEN and session locks
 * (`direct`, which the caller ends with `sql`; sessionPool(sql) finds it).
 */
export function createDb(
  url: string,
  options: { max?: number; name?: string; pooler?: DbPooler } = {},
): { sql: Sql; direct?: Sql } {
  const name = options.name ?? "runifold";
  const sql = postgres(url, {
    max: options.max ?? 10,
    idle_timeout: 30,
    connect_timeout: 10,
    onnotice: () => {},
    connection: { application_name: name },
    ...poolerPoolOptions(options.pooler),
  });
  const direct = registerSessionPool(sql, options.pooler, name);
  return direct ? { sql, direct } : { sql };
}

/** Runs `fn` in a transaction, or directly when `sql` already is one. */
export async function inTransaction<T>(sql: SqlHandle, fn: (tx: SqlHandle) => Promise<T>): Promise<T> {
  if ("begin" in sql && typeof sql.begin === "function") {
    return (await sql.begin((tx) => fn(tx))) as T;
  }
  return fn(sql);
}
