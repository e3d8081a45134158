import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseConnectionUrl } from "@runifold/store";
import { freePort } from "@runifold/store/embedded";
import { waitForValue } from "./wait-for";

/** Debian's package (`apt-get install pgbouncer`, which .ci/run does); run as our own process, never the service. */
export const PGBOUNCER_BIN = "/usr/sbin/pgbouncer";

export function pgbouncerInstalled(): boolean {
  return existsSync(PGBOUNCER_BIN);
}

export type PgBouncer = {
  /** `postgres://user:pw@127.0.0.1:<port>/<db>`: the same login and database as the URL it fronts. */
  url: string;
  output(): string;
  stop(): Promise<void>;
};

/**
 * A PgBouncer of this test's own on a free loopback port in front of `serverUrl` (one host), in
 * `mode` pooling. Clients authenticate as the server URL's login with its password (md5 against
 * the plain userlist entry; PgBouncer logs into PostgreSQL with the same password, SCRAM or md5).
 * `poolSize` server connections per database and user: small, so clients share backends as they
 * would behind a busy pooler.
 */
export async function startPgBouncer(
  serverUrl: string,
  options: { mode: "transaction" | "session"; poolSize?: number },
): Promise<PgBouncer> {
  const { user, password, hosts, rest } = parseConnectionUrl(serverUrl);
  const [host, port] = (hosts[0] ?? "").split(":");
  const database = decodeURIComponent(rest.replace(/^\/([^?]*).*$/s, "$1"));
  const login = decodeURIComponent(user);
  const secret = decodeURIComponent(password);
  const dir = mkdtempSync(path.join(tmpdir(), "rf-pgbouncer-"));
  const listenPort = await freePort();
  const quote = (value: string) => `"${value.replaceAll('"', '""')}"`;
  writeFileSync(path.join(dir, "userlist.txt"), `${quote(login)} ${quote(secret)}\n`, { mode: 0o600 });
  writeFileSync(
    path.join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `${database} = host=${host} port=${port} dbname=${database}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${listenPort}`,
      `unix_socket_dir = ${dir}`,
      `auth_type = ${secret ? "md5" : "trust"}`,
      `auth_file = ${path.join(dir, "userlist.txt")}`,
      `pool_mode = ${options.mode}`,
      `default_pool_size = ${options.poolSize ?? 2}`,
      "max_client_conn = 200",
      `pidfile = ${path.join(dir, "pgbouncer.pid")}`,
      `logfile = ${path.join(dir, "pgbouncer.log")}`,
      "",
    ].join("\n"),
  );
  // PgBouncer refuses to run as root (a CI container): then it runs as an unprivileged system user.
  const runAs = process.getuid?.() === 0 ? unprivilegedUser() : undefined;
  if (runAs) for (const file of [dir, ...readdirSync(dir).map((f) => path.join(dir, f))]) chownSync(file, runAs.uid, runAs.gid);
  const child: ChildProcess = spawn(PGBOUNCER_BIN, [path.join(dir, "pgbouncer.ini")], {
    stdio: ["ignore", "pipe", "pipe"],
    ...(runAs ?? {}),
  });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    await waitForValue(
      async () => {
        if (child.exitCode !== null) throw new Error(`pgbouncer exited (${child.exitCode}): ${output}`);
        return (await canConnect(listenPort)) || undefined;
      },
      { timeoutMs: 10_000, describe: `pgbouncer to listen on ${listenPort}` },
    );
  } catch (error) {
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const auth = secret ? `${user}:${password}` : user;
  return {
    url: `postgres://${auth}@127.0.0.1:${listenPort}/${encodeURIComponent(database)}`,
    output: () => output,
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGINT"); // PgBouncer's immediate shutdown
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `postgres` (which the embedded test server also runs as under root), else `nobody`. */
function unprivilegedUser(): { uid: number; gid: number } {
  for (const name of ["postgres", "nobody"]) {
    const uid = spawnSync("id", ["-u", name], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", name], { encoding: "utf8" });
    if (uid.status === 0 && gid.status === 0) return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  }
  throw new Error("running as root, and neither a postgres nor a nobody user exists to run pgbouncer as");
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
