import { spawnSync } from "node:child_process";
import { closeSync, constants, existsSync, openSync, readFileSync, readSync } from "node:fs";
import path from "node:path";
import type { PgUser } from "./safe-dirs";

/**
 * Pids come from files other users may write (postmaster.pid lives in the server user's data
 * directory; a state file may be stale and its pid reused), so a pid is signalled only once it is
 * shown to be the postmaster of this data directory (security review H2): a live `postgres`
 * process whose command line names the data directory, running as the expected uid.
 */
export function isOurPostmaster(pid: number, dataDir: string, expectedUid?: number): boolean {
  if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) return false;
  if (existsSync("/proc/self/cmdline")) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      if (path.basename(argv[0] ?? "") !== "postgres" || !argv.includes(dataDir)) return false;
      const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
      return expectedUid === undefined || Number(uid) === expectedUid;
    } catch {
      return false; // gone, or not ours to read
    }
  }
  // No /proc (macOS): ps gives the same facts, less exactly (a command line is one string).
  const ps = spawnSync("ps", ["-o", "uid=", "-o", "command=", "-p", String(pid)], { encoding: "utf8" });
  const match = /^\s*(\d+)\s+(\S+)(.*)$/.exec(ps.stdout ?? "");
  if (ps.status !== 0 || !match) return false;
  const [, uid, command, rest] = match;
  if (path.basename(command ?? "") !== "postgres" || !` ${rest} `.includes(` ${dataDir} `)) return false;
  return expectedUid === undefined || Number(uid) === expectedUid;
}

/** The first line of postmaster.pid, read without following a symlink planted in its place. */
function readPidFile(dataDir: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(path.join(dataDir, "postmaster.pid"), constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(32);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    const pid = Number(buffer.subarray(0, length).toString("utf8").split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } finally {
    closeSync(fd);
  }
}

/** The uid the postmaster runs as: the `postgres` user under root, else ourselves. */
export function serverUid(user: PgUser): number | undefined {
  return user?.uid ?? process.getuid?.();
}

/** A SIGKILLed parent leaves its postmaster running; stop it before starting a new one. */
export async function stopStalePostmaster(dataDir: string, binDir: string, user: PgUser, log: (l: string) => void) {
  const pid = readPidFile(dataDir);
  if (pid === undefined || !isAlive(pid)) return; // postgres itself ignores a dead pid file
  if (!isOurPostmaster(pid, dataDir, serverUid(user))) {
    // pg_ctl would signal whatever the file names, so it is not run either.
    log(`postmaster.pid names pid ${pid}, which is not this cluster's postmaster; not signalling it`);
    return;
  }
  log(`stopping stale postmaster ${pid}`);
  spawnSync(path.join(binDir, "pg_ctl"), ["stop", "-D", dataDir, "-m", "fast", "-w", "-t", "20"], {
    encoding: "utf8",
    ...(user ?? {}),
  });
  const deadline = Date.now() + 20_000;
  while (isAlive(pid) && Date.now() < deadline) await sleep(100);
  if (isAlive(pid) && isOurPostmaster(pid, dataDir, serverUid(user))) process.kill(pid, "SIGKILL");
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
