import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type postgres from "postgres";
import { MIGRATION_TAGS } from "./migration-tags";

/**
 * The package's own migrations (packages/store/migrations) when run from source. A bundle that
 * inlines this file (the SDK's dist, the web image's migrate.mjs) ships its own copy and passes its
 * directory: import.meta.url there is the bundle's, not this file's.
 */
export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "migrations");
/** Arbitrary constant: the advisory lock that serialises concurrent migrators. */
const MIGRATION_LOCK_KEY = 7_240_001;

type JournalEntry = { idx: number; tag: string; when: number };

export function listMigrations(dir = MIGRATIONS_DIR) {
  const journal = JSON.parse(readFileSync(path.join(dir, "meta", "_journal.json"), "utf8")) as {
    entries: JournalEntry[];
  };
  return journal.entries.map((entry) => {
    const text = readFileSync(path.join(dir, `${entry.tag}.sql`), "utf8");
    return {
      tag: entry.tag,
      hash: createHash("sha256").update(text).digest("hex"),
      statements: text
        .split("--> statement-breakpoint")
        .map((s) => s.trim())
        .filter(Boolean),
    };
  });
}

/**
 * Applies drizzle-kit's migrations in order (from `dir`: the SDK's bundle passes its own copy). Safe when several processes migrate at once: the whole
 * run holds a transaction-scoped advisory lock, so the second migrator waits and then finds nothing
 * left to do.
 */
export async function migrate(sql: postgres.Sql, dir = MIGRATIONS_DIR): Promise<{ applied: string[] }> {
  const migrations = listMigrations(dir);
  const applied: string[] = [];
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`;
    await tx`CREATE TABLE IF NOT EXISTS runifold_migrations (
      tag text PRIMARY KEY, hash text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`;
    const done = new Set((await tx`SELECT tag FROM runifold_migrations`).map((row) => row.tag as string));
    for (const migration of migrations) {
      if (done.has(migration.tag)) continue;
      for (const statement of migration.statements) await tx.unsafe(statement);
      await tx`INSERT INTO runifold_migrations (tag, hash) VALUES (${migration.tag}, ${migration.hash})`;
      applied.push(migration.tag);
    }
  });
  return { applied };
}

/**
 * True when every migration of this build is recorded in the database. The tags come from the
 * journal inlined at build time, so a bundled server (Next's standalone output) answers without
 * finding the migration files on disk.
 */
export async function migrationsApplied(sql: postgres.Sql): Promise<boolean> {
  const exists = await sql`SELECT to_regclass('runifold_migrations') IS NOT NULL AS ok`;
  if (!exists[0]?.ok) return false;
  const rows = await sql`SELECT tag FROM runifold_migrations`;
  const have = new Set(rows.map((row) => row.tag as string));
  return MIGRATION_TAGS.every((tag) => have.has(tag));
}
