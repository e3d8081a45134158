import path from "node:path";
import { readEmbeddedUrl } from "./embedded-postgres";

/** The local state directory: RUNIFOLD_DATA_DIR (relative to the project root) or `<project>/.data`. */
export function resolveDataRoot(env: { RUNIFOLD_DATA_DIR?: string }, projectRoot = process.cwd()): string {
  // The comment keeps Next from tracing the whole project into the web bundle for this runtime path.
  return path.resolve(/*turbopackIgnore: true*/ projectRoot, env.RUNIFOLD_DATA_DIR ?? ".data");
}

/**
 * Where the store is: DATABASE_URL when set, otherwise the embedded instance a running `npm start`
 * published under the data root. Fails with a message that says what to do.
 */
export function resolveDatabaseUrl(
  env: { DATABASE_URL?: string; RUNIFOLD_DATA_DIR?: string },
  projectRoot = process.cwd(),
): string {
  if (env.DATABASE_URL) return env.DATABASE_URL;
  const root = path.resolve(/*turbopackIgnore: true*/ projectRoot);
  const embedded = readEmbeddedUrl(root, "pg", resolveDataRoot(env, root));
  if (embedded) return embedded;
  throw new Error("No database: set DATABASE_URL, or run `npm start` (which starts the embedded PostgreSQL) first.");
}
