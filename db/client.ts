import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "./schema";

export type Sql = postgres.Sql;
export type Db = ReturnType<typeof createDb>["db"];

/**
 * A pool for one process. Nothing is built at import: the web app, each worker and each test make
 * their own, sized for their job.
 */
export function createDb(url: string, options: { max?: number; name?: string } = {}) {
  const sql = postgres(url, {
    max: options.max ?? 10,
    idle_timeout: 30,
    connect_timeout: 10,
    onnotice: () => {},
    connection: { application_name: options.name ?? "runifold" },
  });
  const db = drizzle(sql, { schema });
  return { sql, db };
}
