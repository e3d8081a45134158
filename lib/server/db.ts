import { createDb, type Sql } from "@runifold/store";
import { resolveDatabaseUrl } from "@runifold/store/embedded";
import { readEnv } from "../env";

/**
 * The web process's one postgres.js pool, created on first use (never at import, so `next build`
 * needs no database) and kept on globalThis so `next dev` hot reloads reuse it instead of leaking
 * a pool per edit. With RUNIFOLD_DB_POOLER=transaction and a direct URL it also holds a small direct
 * pool (@runifold/store sessionPool) that lives as long as the process.
 */
const holder = globalThis as typeof globalThis & { __runifoldWebSql?: Sql };

export function getSql(): Sql {
  if (!holder.__runifoldWebSql) {
    const env = readEnv();
    // Behind a transaction pooler: unnamed statements, LISTEN and the retention lock on the direct URL (docs/deploy.md).
    const pooler = { mode: env.RUNIFOLD_DB_POOLER, directUrl: env.RUNIFOLD_DIRECT_DATABASE_URL };
    holder.__runifoldWebSql = createDb(resolveDatabaseUrl(env), { max: 20, name: "runifold-web", pooler }).sql;
  }
  return holder.__runifoldWebSql;
}
