import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { isAlive } from "@runifold/store/embedded";

/**
 * `<data root>/supervisor.json` names the processes a running `npm start` owns. If that supervisor
 * was SIGKILLed, its web and worker processes outlive it; the next start stops them (the embedded
 * Postgres handles its own stale postmaster).
 */
export type SupervisorState = { pid: number; web?: number; workers: number[]; postgres?: number; url?: string };

const fileIn = (dataRoot: string) => path.join(dataRoot, "supervisor.json");

export function writeSupervisorState(dataRoot: string, state: SupervisorState) {
  mkdirSync(dataRoot, { recursive: true });
  writeFileSync(fileIn(dataRoot), JSON.stringify(state, null, 2));
}

export function clearSupervisorState(dataRoot: string) {
  rmSync(fileIn(dataRoot), { force: true });
}

export async function stopOrphans(dataRoot: string, log: (line: string) => void) {
  const file = fileIn(dataRoot);
  if (!existsSync(file)) return;
  let state: SupervisorState;
  try {
    state = JSON.parse(readFileSync(file, "utf8")) as SupervisorState;
  } catch {
    return;
  }
  if (isAlive(state.pid) && state.pid !== process.pid) {
    throw new Error(
      `another Runifold server (npm start or runifold-server dev, pid ${state.pid}) is using ${dataRoot}; stop it first`,
    );
  }
  const orphans = [state.web, ...state.workers].filter((pid): pid is number => !!pid && isAlive(pid) && ours(pid));
  for (const pid of orphans) {
    log(`stopping process ${pid} left by a previous run`);
    signal(-pid, "SIGKILL");
  }
  clearSupervisorState(dataRoot);
}

/** Only a Node process of this project (next start or a worker), never an unrelated reused pid. */
function ours(pid: number): boolean {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    return /next-server|next[\\/]dist[\\/]bin[\\/]next|workers[\\/]engine\.ts/.test(cmdline);
  } catch {
    return false;
  }
}

function signal(pid: number, sig: NodeJS.Signals) {
  try {
    process.kill(pid, sig);
  } catch {
    try {
      process.kill(Math.abs(pid), sig);
    } catch {
      // gone
    }
  }
}

/** NEXTAUTH_SECRET when unset: generated once into `<data root>/nextauth-secret` and reused. */
export function loadOrCreateSecret(dataRoot: string): string {
  const file = path.join(dataRoot, "nextauth-secret");
  if (existsSync(file)) {
    const existing = readFileSync(file, "utf8").trim();
    if (existing.length >= 16) return existing;
  }
  mkdirSync(dataRoot, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
