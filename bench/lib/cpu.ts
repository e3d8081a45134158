// CPU time from the OS's own accounting (/proc/<pid>/stat), so a figure per request survives a noisy
// machine where req/s does not: user + system time of a process tree, including the children it has
// reaped (cutime/cstime — PostgreSQL's backends that ended are counted in the postmaster's). Linux only.

import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type postgres from "postgres";

const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;

type ProcStat = { pid: number; ppid: number; comm: string; ticks: number };

function readStat(pid: string): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may hold spaces: the fields after it are split by spaces.
    const close = text.lastIndexOf(")");
    const fields = text.slice(close + 2).split(" ");
    // fields[0] is field 3 (state): ppid is field 4, utime..cstime are fields 14..17.
    const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0);
    return { pid: Number(pid), ppid: Number(fields[1]), comm: text.slice(text.indexOf("(") + 1, close), ticks };
  } catch {
    return undefined; // the process ended between the listing and the read
  }
}

function allStats(): ProcStat[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(readStat)
    .filter((stat): stat is ProcStat => stat !== undefined);
}

/** CPU milliseconds used so far by the process `root` and every live descendant of it. */
export function treeCpuMs(root: number): number {
  const stats = allStats();
  const inTree = new Set([root]);
  // Parents precede their children in no guaranteed order: repeat until the set stops growing.
  for (let grew = true; grew; ) {
    grew = false;
    for (const stat of stats)
      if (!inTree.has(stat.pid) && inTree.has(stat.ppid)) {
        inTree.add(stat.pid);
        grew = true;
      }
  }
  const ticks = stats.filter((stat) => inTree.has(stat.pid)).reduce((sum, stat) => sum + stat.ticks, 0);
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/**
 * The PostgreSQL server's postmaster PID, from postmaster.pid in its data directory (readable when
 * the bench started the server itself, as it does unless BENCH_DATABASE_URL names another).
 */
export async function postmasterPid(sql: postgres.Sql): Promise<number | undefined> {
  try {
    const [row] = await sql<{ data_directory: string }[]>`SHOW data_directory`;
    const first = readFileSync(path.join(row?.data_directory ?? "", "postmaster.pid"), "utf8").split("\n")[0];
    return first ? Number(first) : undefined;
  } catch {
    return undefined;
  }
}

/** A set of named process trees whose CPU is read together; `since` gives each one's milliseconds from a reading. */
export class CpuMeter {
  constructor(private readonly roots: Record<string, number | undefined>) {}

  read(): Record<string, number> {
    return Object.fromEntries(
      Object.entries(this.roots).map(([name, pid]) => [name, pid === undefined ? Number.NaN : treeCpuMs(pid)]),
    );
  }

  since(before: Record<string, number>): Record<string, number> {
    const now = this.read();
    return Object.fromEntries(Object.entries(now).map(([name, ms]) => [name, ms - (before[name] ?? Number.NaN)]));
  }
}
