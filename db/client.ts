import postgres from "postgres";

export type Sql = postgres.Sql;

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
