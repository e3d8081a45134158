// `runifold-server start`: the production server against DATABASE_URL. It applies pending migrations
// and seeds a first admin on a store without operators (the migrate job's rules: RUNIFOLD_SEED,
// RUNIFOLD_WEB_DB_PASSWORD / RUNIFOLD_WORKER_DB_PASSWORD; `--no-migrate` leaves that to a separate
// job), then runs the web process in this process: start.mjs checks its environment and hands over
// to Next's standalone server, which binds HOST:PORT and stops on SIGINT/SIGTERM.
import { pathToFileURL } from "node:url";
import { resolveDataRoot } from "@runifold/store/embedded";
import { readEnv } from "../../lib/env";
import { migrateSeed, runMigrateJob } from "../lib/migrate-job";
import { localOrigin } from "../lib/stack";
import { type AppLayout, UsageError } from "./layout";

export async function start(app: AppLayout, options: { migrate: boolean; host?: string; port?: number }): Promise<void> {
  if (options.host) process.env.HOST = options.host;
  if (options.port) process.env.PORT = String(options.port);
  let env: ReturnType<typeof readEnv>;
  try {
    env = readEnv();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (!env.DATABASE_URL)
    throw new UsageError(
      "DATABASE_URL is required: the PostgreSQL that holds the Runifold store (postgres://user:password@host:5432/db). " +
        "For a local store with nothing to set up, run `runifold-server dev`.",
    );
  if (!env.NEXTAUTH_SECRET)
    throw new UsageError(
      "NEXTAUTH_SECRET is required (≥ 16 characters, e.g. `openssl rand -base64 32`): it signs console sessions",
    );
  // The URL browsers and MCP clients use; on this machine alone, the address it binds.
  if (!env.RUNIFOLD_PUBLIC_URL && !process.env.NEXTAUTH_URL) {
    process.env.RUNIFOLD_PUBLIC_URL = localOrigin(env.HOST, env.PORT);
    process.stdout.write(
      `runifold-server: RUNIFOLD_PUBLIC_URL is unset; using ${process.env.RUNIFOLD_PUBLIC_URL} (set it to the URL people and clients reach)\n`,
    );
  }
  if (options.migrate) {
    const seed = migrateSeed(env);
    if (typeof seed === "object") throw new UsageError(seed.refused);
    await runMigrateJob({
      url: env.DATABASE_URL,
      migrationsDir: app.migrationsDir,
      seed,
      runtimePasswords: { web: env.RUNIFOLD_WEB_DB_PASSWORD, worker: env.RUNIFOLD_WORKER_DB_PASSWORD },
      dataRoot: resolveDataRoot(env),
      isTTY: Boolean(process.stdout.isTTY),
      write: (line) => process.stdout.write(`${line}\n`),
    });
  }
  // server.js resolves its files from its own directory; relative paths in the environment stay the caller's.
  await import(pathToFileURL(app.webStart).href);
}
