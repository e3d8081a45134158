import postgres from "postgres";

/** A pool: what a process creates once (it can also LISTEN, reserve and end). */
export type Sql = postgres.Sql;

/** A pool or a transaction: every query and op takes the handle it runs on. */
export type SqlHandle = postgres.Sql | postgres.TransactionSql;

/**
 * A pool for one process. Nothing is built at import: the web app, each worker and each test make
 * their own, sized for their job. Queries are plain SQL through postgres.js (drizzle owns the
 * schema and the migrations); we deliberately do not wrap this client in drizzle(), which would
 * replace its date parsers and JSON serialisers for every other user of the pool.
 */
export function createDb(url: string, options: { max?: number; name?: string } = {}): { sql: Sql } {
  const sql = postgres(url, {
    max: options.max ?? 10,
    idle_timeout: 30,
    connect_timeout: 10,
    onnotice: () => {},
    connection: { application_name: options.name ?? "runifold" },
  });
  return { sql };
}

/** Runs `fn` in a transaction, or directly when `sql` already is one. */
export async function inTransaction<T>(sql: SqlHandle, fn: (tx: SqlHandle) => Promise<T>): Promise<T> {
  if ("begin" in sql && typeof sql.begin === "function") {
    return (await sql.begin((tx) => fn(tx))) as T;
  }
  return fn(sql);
}
