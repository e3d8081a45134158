import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * `.runifold/dev.json`: how a local worker finds a running dev server (`runifold-server dev`, or the
 * repository's `npm start`). The server writes it in its working directory; `runifold-worker --dev`
 * looks for it from its own working directory upwards. It holds a database URL and an API key, so
 * it is written 0600 and its folder carries a `.gitignore` of `*`.
 */
export type DevFileInfo = {
  version: 1;
  /** The store a worker connects to (the runtime login's URL, never the superuser's, where there is one). */
  databaseUrl: string;
  consoleUrl: string;
  mcpUrl: string;
  /** The tenant the key below belongs to, when the server knows it. */
  tenant?: string;
  /** An API key for MCP clients, when the server created one it may show (hashed at rest otherwise). */
  apiKey?: string;
  /** The server's process: a file whose pid is gone is stale. */
  pid: number;
  startedAt: string;
};

export const DEV_DIR = ".runifold";
export const DEV_FILE = "dev.json";

/** The file was found but cannot be used; the message says why. */
export class DevFileError extends Error {
  override name = "DevFileError";
}

/**
 * Writes `<dir>/.runifold/dev.json` (mode 0600, through a temporary file and a rename, so a reader
 * never sees half of it) and `<dir>/.runifold/.gitignore` (`*`). Returns the file's path.
 */
export function writeDevFile(dir: string, info: Omit<DevFileInfo, "version">): string {
  const folder = path.join(dir, DEV_DIR);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const ignore = path.join(folder, ".gitignore");
  if (!existsSync(ignore)) writeFileSync(ignore, "# written by Runifold: local credentials, never committed\n*\n");
  const file = path.join(folder, DEV_FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ version: 1, ...info }, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600); // the umask may have narrowed it further, never widened; say it exactly
  renameSync(temporary, file);
  return file;
}

/** Removes `<dir>/.runifold/dev.json` if it is this server's (its pid), e.g. on a clean stop. */
export function removeDevFile(dir: string, pid: number = process.pid): void {
  const file = path.join(dir, DEV_DIR, DEV_FILE);
  try {
    if (readDevFile(file).pid === pid) rmSync(file, { force: true });
  } catch {
    // Missing or unreadable: nothing of ours to remove.
  }
}

/** Parses a dev file by path; throws DevFileError naming the file when it is not a version-1 dev file. */
export function readDevFile(file: string): DevFileInfo {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new DevFileError(`${file} is not readable JSON: ${(error as Error).message}`);
  }
  const v = (parsed ?? {}) as Record<string, unknown>;
  if (v.version !== 1) throw new DevFileError(`${file} has version ${JSON.stringify(v.version)}; this SDK reads version 1`);
  for (const field of ["databaseUrl", "consoleUrl", "mcpUrl", "startedAt"] as const) {
    if (typeof v[field] !== "string" || v[field] === "") throw new DevFileError(`${file}: ${field} is missing`);
  }
  if (!Number.isInteger(v.pid) || (v.pid as number) <= 0) throw new DevFileError(`${file}: pid is missing`);
  for (const field of ["tenant", "apiKey"] as const) {
    if (v[field] !== undefined && typeof v[field] !== "string") throw new DevFileError(`${file}: ${field} must be a string`);
  }
  return v as DevFileInfo;
}

/** The nearest `.runifold/dev.json` from `startDir` upwards, or undefined when there is none. */
export function findDevFile(startDir: string): string | undefined {
  let dir = path.resolve(startDir);
  for (;;) {
    const file = path.join(dir, DEV_DIR, DEV_FILE);
    if (existsSync(file)) return file;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Whether a process with this pid exists (EPERM: it exists under another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
