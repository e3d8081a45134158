import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { inject } from "vitest";
import { withDatabase } from "./global-setup";

/** A fresh, migrated database for one test file, cloned from the template in one statement. */
export async function freshDatabase(): Promise<{ url: string; sql: postgres.Sql; drop(): Promise<void> }> {
  const adminUrl = inject("adminDatabaseUrl");
  const template = inject("templateDatabase");
  const name = `t_${randomBytes(6).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  await admin.end();
  const url = withDatabase(adminUrl, name);
  const sql = postgres(url, { max: 10, onnotice: () => {} });
  return {
    url,
    sql,
    async drop() {
      await sql.end({ timeout: 5 });
      const cleanup = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}
