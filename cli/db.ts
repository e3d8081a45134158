import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createDb, type Sql, type SqlHandle } from "@runifold/store";
import { resolveDatabaseUrl } from "@runifold/store/embedded";
import { findTenantBySlug, type TenantRow } from "../db/queries/tenants";
import type { AdminActor, AdminContext } from "../lib/admin";
import { readEnv } from "../lib/env";
import { isAppError } from "../lib/errors";
import { CliError, UsageError } from "./args";
import type { CliIo } from "./commands/registry";

/** The package root, so the CLI finds `.data/` (the embedded database `npm start` runs) from any directory. */
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Runs `fn` with a small pool on DATABASE_URL (or the embedded instance of a running `npm start`), then closes it. */
export async function withDatabase<T>(io: CliIo, fn: (sql: Sql) => Promise<T>): Promise<T> {
  const url = resolveDatabaseUrl(readEnv(io.env), PROJECT_ROOT);
  const { sql } = createDb(url, { max: 2, name: "runifold-cli" });
  try {
    return await fn(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * withDatabase for store verbs that change something through lib/admin (the console's and the
 * seed's rules too), acting as `cli:<os user>@<host>`. The service's refusals become CLI errors
 * (exit 4): invalid input is a usage error, a duplicate or a missing object a plain one.
 */
export async function withAdmin<T>(io: CliIo, fn: (ctx: AdminContext) => Promise<T>): Promise<T> {
  try {
    return await withDatabase(io, (sql) => fn({ sql, actor: cliActor() }));
  } catch (error) {
    if (!isAppError(error)) throw error;
    throw error.code === "bad_request" ? new UsageError(error.message) : new CliError(error.message);
  }
}

/** Who runs the CLI, for the audit trail: the OS user (USER when the user database has no entry) and the host. */
export function cliActor(): AdminActor {
  let user: string;
  try {
    user = os.userInfo().username;
  } catch {
    user = process.env.USER ?? process.env.LOGNAME ?? "unknown";
  }
  return { kind: "cli", user, host: os.hostname() };
}

export async function requireTenant(sql: SqlHandle, slug: string): Promise<TenantRow> {
  const tenant = await findTenantBySlug(sql, slug);
  if (!tenant) throw new CliError(`No tenant "${slug}" (see: runifold tenants list)`);
  return tenant;
}
