import path from "node:path";
import { fileURLToPath } from "node:url";
import type { SqlHandle } from "../db/client";
import { createDb, type Sql } from "../db/client";
import { resolveDatabaseUrl } from "../db/embedded/database-url";
import { findTenantBySlug, type TenantRow } from "../db/queries/tenants";
import { readEnv } from "../lib/env";
import { CliError } from "./args";
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

export async function requireTenant(sql: SqlHandle, slug: string): Promise<TenantRow> {
  const tenant = await findTenantBySlug(sql, slug);
  if (!tenant) throw new CliError(`No tenant "${slug}" (see: runifold tenants list)`);
  return tenant;
}
