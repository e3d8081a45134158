import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "@runifold/store/embedded";
import postgres from "postgres";
import { waitForValue } from "./wait-for";

/** Debian's pg-auto-failover-cli (`apt-get install postgresql-15-auto-failover`, which .ci/run does). */
export const PG_AUTOCTL = "/usr/bin/pg_autoctl";
const PG_BIN = "/usr/lib/postgresql/15/bin";

export function pgAutoFailoverInstalled(): boolean {
  return existsSync(PG_AUTOCTL) && existsSync(path.join(PG_BIN, "pg_ctl"));
}

export type FormationNode = { name: string; port: number; pgdata: string; keeper: ChildProcess };

export type Formation = {
  /** `postgres://postgres@127.0.0.1:<p1>,127.0.0.1:<p2>/<db>?target_session_attrs=read-write` */
  url: string;
  nodes: FormationNode[];
  /** The node the monitor has as primary (reported and assigned), once there is one. */
  primary(): Promise<FormationNode | undefined>;
  /** Each node's reported and assigned state, as `pg_autoctl show state` prints them. */
  states(): Promise<{ name: string; reported: string; assigned: string }[]>;
  /** SIGKILL of the node's keeper, its postgres controller and the postmaster (with its backends). */
  killHard(node: FormationNode): void;
  output(): string;
  stop(): Promise<void>;
};

/**
 * Monitor timeouts short enough for a test (pg_auto_failover's defaults, in brackets, take the
 * promotion to ~30 s): a health check a second [5 s, 5 s timeout, 2 retries 2 s apart], a node
 * unhealthy after 3 s [20 s], and the monitor waits 3 s [30 s] for the old primary to demote itself
 * before the standby is writable. The keepers' network_partition_timeout goes to 2 s [20 s] to match:
 * a primary that loses the monitor and its standby stops taking writes before the standby is promoted.
 */
const MONITOR_SETTINGS: Record<string, number> = {
  "pgautofailover.health_check_period": 1_000,
  "pgautofailover.health_check_timeout": 1_000,
  "pgautofailover.health_check_max_retries": 1,
  "pgautofailover.health_check_retry_delay": 500,
  "pgautofailover.node_considered_unhealthy_timeout": 3_000,
  "pgautofailover.primary_demote_timeout": 3_000,
};

/**
 * A pg_auto_failover formation of this test's own on loopback: a monitor, then a primary and a
 * secondary in one group (synchronous replication: pg_auto_failover sets synchronous_standby_names
 * on the primary once the secondary is up). Trust authentication and no TLS: loopback only. Each
 * `pg_autoctl run` is a child in a process group of its own, so one kill reaches the whole node.
 * pg_autoctl refuses to run as root: then everything runs as the `postgres` user.
 */
export async function startFormation(database: string): Promise<Formation> {
  const root = mkdtempSync(path.join(tmpdir(), "rf-pgaf-"));
  const runAs = process.getuid?.() === 0 ? userIds("postgres") : undefined;
  if (runAs) chownSync(root, runAs.uid, runAs.gid);
  const env = {
    ...process.env,
    PATH: `${PG_BIN}:${process.env.PATH ?? ""}`,
    // pg_autoctl keeps each node's configuration and state under these.
    XDG_CONFIG_HOME: path.join(root, "config"),
    XDG_DATA_HOME: path.join(root, "share"),
    HOME: root,
  };
  for (const dir of [env.XDG_CONFIG_HOME, env.XDG_DATA_HOME]) {
    mkdirSync(dir);
    if (runAs) chownSync(dir, runAs.uid, runAs.gid);
  }
  let output = "";
  const keepers: ChildProcess[] = [];
  const autoctl = (args: string[]) => {
    const result = spawnSync(PG_AUTOCTL, args, { env, encoding: "utf8", timeout: 120_000, ...(runAs ?? {}) });
    output += `$ pg_autoctl ${args.join(" ")}\n${result.stdout}${result.stderr}`;
    if (result.status !== 0) throw new Error(`pg_autoctl ${args[0]} ${args[1]} failed (${result.status}):\n${result.stderr}`);
  };
  const run = (pgdata: string) => {
    const child = spawn(PG_AUTOCTL, ["run", "--pgdata", pgdata], {
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      ...(runAs ?? {}),
    });
    child.stdout?.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr?.on("data", (chunk) => {
      output += chunk;
    });
    keepers.push(child);
    return child;
  };
  const common = ["--hostname", "127.0.0.1", "--listen", "127.0.0.1", "--auth", "trust", "--no-ssl"];
  const monitorPort = await freePort();
  const monitorUrl = `postgres://postgres@127.0.0.1:${monitorPort}/pg_auto_failover`;
  const monitor = () => postgres(monitorUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  const states = async () => {
    const sql = monitor();
    try {
      const rows = await sql<{ name: string; reported: string; assigned: string }[]>`
        SELECT nodename AS name, reportedstate::text AS reported, goalstate::text AS assigned FROM pgautofailover.node ORDER BY nodeid`;
      return [...rows];
    } finally {
      await sql.end({ timeout: 2 });
    }
  };
  const nodes: FormationNode[] = [];
  // A killed node's postmaster.pid stays behind naming a dead pid, which must never be signalled again.
  const killed = new Set<string>();
  const stop = async () => {
    const exits = keepers.map((k) =>
      k.exitCode !== null || k.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => k.once("exit", () => r())),
    );
    // SIGTERM: the keeper stops its postgres (fast shutdown) and exits; a kill after 15 s.
    for (const k of keepers) if (k.pid && k.exitCode === null && k.signalCode === null) signalGroup(k.pid, "SIGTERM");
    await Promise.race([Promise.all(exits), new Promise((r) => setTimeout(r, 15_000))]);
    for (const k of keepers) if (k.pid) signalGroup(k.pid, "SIGKILL");
    for (const node of nodes) if (!killed.has(node.name)) killPostmaster(node.pgdata);
    killPostmaster(path.join(root, "monitor"));
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const monitorData = path.join(root, "monitor");
    autoctl(["create", "monitor", "--pgdata", monitorData, "--pgport", String(monitorPort), ...common]);
    run(monitorData);
    await waitForValue(async () => (await states().catch(() => undefined)) && true, {
      describe: "the pg_auto_failover monitor to answer",
      timeoutMs: 30_000,
    });
    const sql = monitor();
    try {
      for (const [name, value] of Object.entries(MONITOR_SETTINGS)) await sql.unsafe(`ALTER SYSTEM SET ${name} = ${value}`);
      await sql`SELECT pg_reload_conf()`;
    } finally {
      await sql.end({ timeout: 2 });
    }
    for (const name of ["node1", "node2"]) {
      const port = await freePort();
      const pgdata = path.join(root, name);
      const monitorArg = `${monitorUrl.replace("postgres@", "autoctl_node@")}?sslmode=disable`;
      autoctl(
        ["create", "postgres", "--pgdata", pgdata, "--pgport", String(port), "--name", name, "--dbname", database].concat([
          "--monitor",
          monitorArg,
          "--pgctl",
          path.join(PG_BIN, "pg_ctl"),
          ...common,
        ]),
      );
      autoctl(["config", "set", "--pgdata", pgdata, "timeout.network_partition_timeout", "2"]);
      nodes.push({ name, port, pgdata, keeper: run(pgdata) });
      // The first node must be a primary before the second can clone it.
      const wanted = nodes.length === 1 ? ["single"] : ["primary", "secondary"];
      await waitForValue(
        async () => {
          const now = await states().catch(() => []);
          return wanted.every((state, i) => now[i]?.reported === state && now[i]?.assigned === state) || undefined;
        },
        { describe: `the formation to be ${wanted.join(" + ")}`, timeoutMs: 90_000, everyMs: 250 },
      );
    }
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n${output.slice(-4_000)}`);
  }
  return {
    url: `postgres://postgres@${nodes.map((n) => `127.0.0.1:${n.port}`).join(",")}/${database}?target_session_attrs=read-write`,
    nodes,
    states,
    async primary() {
      const now = await states().catch(() => []);
      const name = now.find((s) => s.reported === s.assigned && ["primary", "wait_primary", "single"].includes(s.reported))?.name;
      return nodes.find((n) => n.name === name);
    },
    killHard(node) {
      const postmaster = postmasterPid(node.pgdata);
      killed.add(node.name);
      if (node.keeper.pid) signalGroup(node.keeper.pid, "SIGKILL");
      if (postmaster) signalPid(postmaster, "SIGKILL");
    },
    output: () => output,
    stop,
  };
}

function postmasterPid(pgdata: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(pgdata, "postmaster.pid"), "utf8").split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function killPostmaster(pgdata: string) {
  const pid = postmasterPid(pgdata);
  if (pid) signalPid(pid, "SIGKILL");
}

function signalGroup(pid: number, signal: NodeJS.Signals) {
  signalPid(-pid, signal);
}

function signalPid(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

function userIds(name: string): { uid: number; gid: number } {
  const uid = spawnSync("id", ["-u", name], { encoding: "utf8" });
  const gid = spawnSync("id", ["-g", name], { encoding: "utf8" });
  if (uid.status !== 0 || gid.status !== 0) throw new Error(`running as root, and no ${name} user to run pg_autoctl as`);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}
