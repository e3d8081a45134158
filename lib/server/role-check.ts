import { createLogger } from "@runifold/sdk";
import type { Sql } from "@runifold/store";
import { readEnv } from "../env";
import { getSql } from "./db";

/**
 * Why the web's database role is too strong, or undefined when it is not (review 3, F4): a superuser
 * or BYPASSRLS role turns any SQL injection into control of every database on the server (and, as a
 * superuser, of the server's programs). The web still runs (a deployment may not have moved yet).
 */
export async function privilegedRoleWarning(sql: Sql): Promise<string | undefined> {
  const [me] = await sql<{ role: string; rolsuper: boolean; rolbypassrls: boolean; expected: string | null }[]>`
    SELECT current_user AS role, rolsuper, rolbypassrls,
           CASE WHEN to_regprocedure('runifold_role_name(text)') IS NOT NULL THEN runifold_role_name('web') END AS expected
    FROM pg_roles WHERE rolname = current_user`;
  if (!me || (!me.rolsuper && !me.rolbypassrls)) return undefined;
  const what = me.rolsuper ? "a superuser" : "a BYPASSRLS role";
  const instead = me.expected ? ` such as ${me.expected}` : "";
  return `the web connects to PostgreSQL as ${me.role}, ${what}: connect as a runtime login${instead} (docs/deploy.md, "Database roles")`;
}

/** Logs the warning once at start-up; never blocks or fails the start (the schema check does that). */
export function warnIfPrivilegedRole(): void {
  const logger = createLogger("database", readEnv().RUNIFOLD_LOG_LEVEL);
  privilegedRoleWarning(getSql()).then(
    (warning) => {
      if (warning) logger.warn(warning);
    },
    () => {}, // no database yet: the schema check reports that
  );
}
