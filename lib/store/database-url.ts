import path from "node:path";
import { readEmbeddedUrl } from "./embedded-postgres";

/**
 * Where the store is: DATABASE_URL when set, otherwise the embedded instance a running `npm start`
 * published under .data/. Fails with a message that says what to do.
 */
export function resolveDatabaseUrl(env: { DATABASE_URL?: string }, projectRoot = process.cwd()): string {
  if (env.DATABASE_URL) return env.DATABASE_URL;
  const embedded = readEmbeddedUrl(path.resolve(projectRoot));
  if (embedded) return embedded;
  throw new Error("No database: set DATABASE_URL, or run `npm start` (which starts the embedded PostgreSQL) first.");
}
