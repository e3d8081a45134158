import type { SqlHandle } from "./types";

/** Runs `fn` in a transaction, or directly when `sql` already is one. */
export async function inTransaction<T>(sql: SqlHandle, fn: (tx: SqlHandle) => Promise<T>): Promise<T> {
  if ("begin" in sql && typeof sql.begin === "function") {
    return (await sql.begin((tx) => fn(tx))) as T;
  }
  return fn(sql);
}
