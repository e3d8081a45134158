import path from "node:path";
import { DevFileError, findDevFile, processAlive, readDevFile } from "../dev/dev-file";
import { redactUrl } from "./migrate-command";

export type DevStore = { databaseUrl: string /** Which store, for the startup line: no secret in it. */; describe: string };

const START_ONE =
  "start `npx @runifold/server dev` in your project first (in the Runifold repository: `npm start`), or set DATABASE_URL";

/**
 * The store the dev loop's worker uses: an explicit DATABASE_URL wins; otherwise the one in the
 * nearest `.runifold/dev.json` from `cwd` upwards, written by a dev server that is still running.
 * Returns an error message (what to do) when there is neither.
 */
export function resolveDevStore(env: Record<string, string | undefined>, cwd: string): DevStore | { error: string } {
  if (env.DATABASE_URL) {
    return { databaseUrl: env.DATABASE_URL, describe: `DATABASE_URL from the environment (${redactUrl(env.DATABASE_URL)})` };
  }
  const file = findDevFile(cwd);
  if (!file) return { error: `no dev server found: no .runifold/dev.json in ${cwd} or any folder above it; ${START_ONE}` };
  let info: ReturnType<typeof readDevFile>;
  try {
    info = readDevFile(file);
  } catch (error) {
    if (error instanceof DevFileError) return { error: `${error.message}; ${START_ONE}` };
    throw error;
  }
  if (!processAlive(info.pid)) {
    return { error: `the dev server that wrote ${file} (pid ${info.pid}) is not running; ${START_ONE}` };
  }
  const shown = path.relative(cwd, file) || file;
  return {
    databaseUrl: info.databaseUrl,
    describe: `the dev server's store (${shown}, pid ${info.pid}; console ${info.consoleUrl}) at ${redactUrl(info.databaseUrl)}`,
  };
}
