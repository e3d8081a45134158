import path from "node:path";
import { DEV_DIR, DEV_FILE, type DevFileInfo, processAlive, readDevFile, removeDevFile, writeDevFile } from "@runifold/sdk";
import { createDb } from "@runifold/store";
import { verifyApiKey } from "../../lib/auth";

/**
 * `npm start` as a dev server: writes `<root>/.runifold/dev.json` (the format `runifold-server dev`
 * writes, packages/sdk/src/dev/dev-file.ts) so `runifold-worker --workflows <file> --dev` run in the
 * checkout finds the store, and removes it when this process exits. The database URL is the
 * workers' (the runtime login's on the embedded store, never the superuser's). The API key is the
 * one the first run's seed printed, kept from the previous file on later runs (the store holds only
 * its hash) while it still verifies against this store; its tenant is the one it authenticates as.
 * A file of another dev server that is still running (a test's `npm start` beside a developer's) is
 * left alone: returns undefined then.
 */
export async function publishRepoDevFile(options: {
  root: string;
  /** The URL a worker connects with. */
  workerUrl: string;
  /** A URL that may read the keys table (the owner's): the key is verified with it. */
  ownerUrl: string;
  consoleUrl: string;
  seededKey?: string;
  log?: (line: string) => void;
}): Promise<string | undefined> {
  const previous = readPrevious(options.root);
  if (previous && previous.pid !== process.pid && processAlive(previous.pid)) {
    options.log?.(`.runifold/dev.json belongs to another running dev server (pid ${previous.pid}): left as it is`);
    return undefined;
  }
  const key = options.seededKey ?? previous?.apiKey;
  const principal = key ? await verifyKey(options.ownerUrl, key) : undefined;
  const file = writeDevFile(options.root, {
    databaseUrl: options.workerUrl,
    consoleUrl: options.consoleUrl,
    mcpUrl: `${options.consoleUrl}/api/mcp`,
    ...(principal && key ? { tenant: principal.tenantSlug, apiKey: key } : {}),
    pid: process.pid,
    startedAt: new Date().toISOString(),
  });
  // Sync, on every way out (a clean stop, a fatal error, a second signal): a stale file would send
  // a dev worker to a store that is gone (it checks the pid too).
  process.on("exit", () => removeDevFile(options.root));
  options.log?.(
    `wrote ${path.relative(options.root, file)}: \`runifold-worker --workflows <file> --dev\` serves your workflows here`,
  );
  return file;
}

function readPrevious(root: string): DevFileInfo | undefined {
  try {
    return readDevFile(path.join(root, DEV_DIR, DEV_FILE));
  } catch {
    return undefined; // none, or not one we can read: nothing to keep
  }
}

async function verifyKey(url: string, key: string) {
  const { sql } = createDb(url, { max: 1, name: "runifold-start" });
  try {
    return await verifyApiKey(sql, key);
  } finally {
    await sql.end({ timeout: 5 });
  }
}
