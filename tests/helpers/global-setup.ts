import { rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { migrate } from "@runifold/store";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "@runifold/store/embedded";
import postgres from "postgres";
import type { TestProject } from "vitest/node";
import { sweepAbandonedClusters } from "../../scripts/lib/abandoned-clusters";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

declare module "vitest" {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
    templateDatabase: string;
  }
}

/**
 * One Postgres for the whole test run: TEST_DATABASE_URL when set (a server we may create
 * databases on), otherwise an embedded one of this run's own (.data/test-pg-<pid>, removed at the
 * end), so concurrent test runs on one machine never stop or reuse each other's server. A migrated
 * template database is built once; each test file clones it (tests/helpers/db.ts).
 */
export default async function setup(project: TestProject) {
  let embedded: EmbeddedPostgres | undefined;
  let adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    await sweepAbandonedClusters(path.join(ROOT, ".data"), "test-pg", () => {});
    embedded = await startEmbeddedPostgres({ projectRoot: ROOT, name: `test-pg-${process.pid}` });
    adminUrl = embedded.url;
  }
  const templateDb = `runifold_template_${process.pid}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`DROP DATABASE IF EXISTS ${templateDb} WITH (FORCE)`);
  await admin.unsafe(`CREATE DATABASE ${templateDb}`);
  const template = postgres(withDatabase(adminUrl, templateDb), { max: 1, onnotice: () => {} });
  await migrate(template);
  await template.end();
  await admin.end();
  project.provide("adminDatabaseUrl", adminUrl);
  project.provide("templateDatabase", templateDb);
  return async () => {
    if (!embedded) {
      const cleanup = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`DROP DATABASE IF EXISTS ${templateDb} WITH (FORCE)`).catch(() => {});
      // Its runtime roles (migrations 0035, 0036) are cluster-wide by name; a clone still using it keeps it.
      for (const kind of ["rt", "wk"]) await cleanup.unsafe(`DROP ROLE IF EXISTS runifold_${kind}_${templateDb}`).catch(() => {});
      await cleanup.end();
      return;
    }
    await embedded.stop();
    rmSync(embedded.dataDir, { recursive: true, force: true });
    const name = `test-pg-${process.pid}`;
    for (const suffix of ["embedded.json", "password", "log"])
      rmSync(path.join(ROOT, ".data", `${name}.${suffix}`), { force: true });
  };
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
