import { MIGRATION_TAGS, type Sql } from "@runifold/store";

/** The migrations this SDK was built against, in order. */
export const KNOWN_MIGRATIONS: readonly string[] = MIGRATION_TAGS;

export class SchemaMismatchError extends Error {
  override name = "SchemaMismatchError";
}

export type SchemaStatus = { missing: string[]; unknown: string[] };

/** Which of this SDK's migrations the store lacks, and which store migrations this SDK does not know. */
export async function readSchemaStatus(sql: Sql): Promise<SchemaStatus> {
  const [exists] = await sql`SELECT to_regclass('runifold_migrations') IS NOT NULL AS ok`;
  const applied = exists?.ok ? (await sql`SELECT tag FROM runifold_migrations`).map((row) => row.tag as string) : [];
  const have = new Set(applied);
  const known = new Set(KNOWN_MIGRATIONS);
  return { missing: KNOWN_MIGRATIONS.filter((tag) => !have.has(tag)), unknown: applied.filter((tag) => !known.has(tag)).sort() };
}

/**
 * Refuses a store older than this SDK (a worker would write columns that do not exist). A newer
 * store is accepted: migrations only add (docs/deploy.md "Upgrades"), so an older worker keeps
 * working while the fleet rolls; the caller logs a warning naming the newer migrations.
 */
export function assertSchemaSupported(status: SchemaStatus): void {
  if (status.missing.length === 0) return;
  const first = status.missing[0];
  throw new SchemaMismatchError(
    `the store's schema is older than this SDK: migration ${first}${status.missing.length > 1 ? ` and ${status.missing.length - 1} more` : ""} ` +
      "not applied. Apply the migrations first (the deployment's migrate job, `runifold-worker migrate`, or `npm run db:migrate` in the Runifold app), then start the worker.",
  );
}
