// `npm run db:migrate`: applies pending migrations to DATABASE_URL (or the embedded instance a
// running `npm start` published) and prints what it applied.
import { createDb } from "../db/client";
import { resolveDatabaseUrl } from "../db/embedded/database-url";
import { migrate } from "../db/migrate";
import { readEnv } from "../lib/env";

async function main() {
  const { sql } = createDb(resolveDatabaseUrl(readEnv()), { max: 1, name: "runifold-migrate" });
  try {
    const { applied } = await migrate(sql);
    if (applied.length === 0) process.stdout.write("migrations: up to date\n");
    for (const tag of applied) process.stdout.write(`applied ${tag}\n`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

main().catch((error) => {
  process.stderr.write(`db:migrate failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
