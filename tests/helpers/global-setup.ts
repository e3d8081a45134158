import path from "node:path";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import type { TestProject } from "vitest/node";
import { migrate } from "../../db/migrate";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "../../lib/store/embedded-postgres";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const TEMPLATE_DB = "runifold_template";

declare module "vitest" {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
  }
}

/**
 * One Postgres for the whole test run: TEST_DATABASE_URL when set (a server we may create
 * databases on), otherwise an embedded one under .data/test-pg. A migrated template database is
 * built once; each test file clones it (tests/helpers/db.ts).
 */
export default async function setup(project: TestProject) {
  let embedded: EmbeddedPostgres | undefined;
  let adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    embedded = await startEmbeddedPostgres({ projectRoot: ROOT, name: "test-pg" });
    adminUrl = embedded.url;
  }
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`);
  await admin.unsafe(`CREATE DATABASE ${TEMPLATE_DB}`);
  const template = postgres(withDatabase(adminUrl, TEMPLATE_DB), { max: 1, onnotice: () => {} });
  await migrate(template);
  await template.end();
  await admin.end();
  project.provide("adminDatabaseUrl", adminUrl);
  return async () => {
    await embedded?.stop();
  };
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
