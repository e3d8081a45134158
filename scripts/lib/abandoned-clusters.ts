import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { isAlive } from "@runifold/store/embedded";

/**
 * Test runs give their embedded PostgreSQL a name of their own (`<prefix>-<pid>`), so two runs on one
 * machine never stop each other's server. The price: a run that is SIGKILLed leaves its detached
 * postmaster and data behind under a name nobody will start again. Each run therefore first sweeps
 * the clusters of its kind whose owning process is gone: their postmaster is stopped, their files
 * removed. A cluster whose owner is alive is never touched.
 */
export async function sweepAbandonedClusters(dataRoot: string, prefix: string, log: (line: string) => void): Promise<void> {
  if (!existsSync(dataRoot)) return;
  const pattern = new RegExp(`^(${prefix.replace(/[^a-z0-9-]/gi, "")}-\\d+)\\.embedded\\.json$`);
  for (const entry of readdirSync(dataRoot)) {
    const name = pattern.exec(entry)?.[1];
    if (!name) continue;
    let state: { ownerPid?: number; postmasterPid?: number; dataDir?: string };
    try {
      state = JSON.parse(readFileSync(path.join(dataRoot, entry), "utf8"));
    } catch {
      continue;
    }
    if (!state.ownerPid || isAlive(state.ownerPid)) continue;
    log(`removing ${name}, left by process ${state.ownerPid}, which is gone`);
    // Only a directory of that exact name, in one of the two places startEmbeddedPostgres puts clusters.
    const dir = state.dataDir ? path.resolve(state.dataDir) : undefined;
    const ours =
      dir && path.basename(dir) === name && (dir.startsWith(`${dataRoot}${path.sep}`) || dir.startsWith("/var/tmp/runifold-"));
    if (!ours) continue;
    if (state.postmasterPid && servesDataDir(state.postmasterPid, dir)) await stopPostmaster(state.postmasterPid);
    rmSync(dir, { recursive: true, force: true });
    for (const suffix of ["embedded.json", "password", "log"]) rmSync(path.join(dataRoot, `${name}.${suffix}`), { force: true });
  }
}

/** The pid is alive and is the postmaster of `dataDir` (never an unrelated process that reused the pid). */
function servesDataDir(pid: number, dataDir: string): boolean {
  try {
    return isAlive(pid) && readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(dataDir);
  } catch {
    return false;
  }
}

async function stopPostmaster(pid: number) {
  signal(pid, "SIGINT"); // fast shutdown
  const deadline = Date.now() + 15_000;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  if (isAlive(pid)) signal(pid, "SIGKILL");
}

function signal(pid: number, name: NodeJS.Signals) {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}
