import { createDb, type Sql } from "@runifold/store";
import { resolveDatabaseUrl } from "@runifold/store/embedded";
import { readEnv } from "../env";

/**
 * The web process's one postgres.js pool, created on first use (never at import, so `next build`
 * needs no database) and kept on globalThis so `next dev` hot reloads reuse it instead of leaking
 * a pool per edit.
 */
const holder = globalThis as typeof globalThis & { __runifoldWebSql?: Sql };

export function getSql(): Sql {
  holder.__runifoldWebSql ??= createDb(resolveDatabaseUrl(readEnv()), { max: 20, name: "runifold-web" }).sql;
  return holder.__runifoldWebSql;
}
