// `npm run db:migrate`, and the web image's one-shot migrate job (this file bundled as migrate.mjs,
// docs/deploy.md): applies pending migrations to DATABASE_URL (or the embedded instance a running
// `npm start` published), then RUNIFOLD_SEED (default `admin` with DATABASE_URL: a first admin
// only), then the runtime logins whose passwords RUNIFOLD_WEB_DB_PASSWORD / RUNIFOLD_WORKER_DB_PASSWORD
// give, and prints what it did. Exit codes: 0 done, 1 failed, 2 configuration.
import { resolveDatabaseUrl, resolveDataRoot } from "@runifold/store/embedded";
import { readEnv } from "../lib/env";
import { bundledMigrationsDir, migrateSeed, runMigrateJob } from "./lib/migrate-job";

async function main(): Promise<number> {
  let env: ReturnType<typeof readEnv>;
  let url: string;
  try {
    env = readEnv();
    url = resolveDatabaseUrl(env);
  } catch (error) {
    process.stderr.write(`db:migrate: ${(error as Error).message}\n`);
    return 2;
  }
  const seed = migrateSeed(env);
  if (typeof seed === "object") {
    process.stderr.write(`db:migrate: ${seed.refused}\n`);
    return 2;
  }
  await runMigrateJob({
    url,
    migrationsDir: bundledMigrationsDir(import.meta.url),
    seed,
    runtimePasswords: { web: env.RUNIFOLD_WEB_DB_PASSWORD, worker: env.RUNIFOLD_WORKER_DB_PASSWORD },
    dataRoot: resolveDataRoot(env),
    isTTY: Boolean(process.stdout.isTTY),
    write: (line) => process.stdout.write(`${line}\n`),
  });
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`db:migrate failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
