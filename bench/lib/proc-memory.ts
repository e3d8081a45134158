// Resident memory of a process tree from the OS (/proc/<pid>/status VmRSS), for memory-per-stream
// figures: `next start` may serve from a child process, so the whole tree under the web's PID is
// summed. Linux only.

import { readdirSync, readFileSync } from "node:fs";

function parentOf(pid: string): number | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may hold spaces: ppid is the second field after it.
    return Number(text.slice(text.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined; // ended between the listing and the read
  }
}

/** The PIDs of `root` and every live descendant of it. */
export function treePids(root: number): number[] {
  const parents = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map((pid) => [Number(pid), parentOf(pid)] as const);
  const inTree = new Set([root]);
  // Parents precede their children in no guaranteed order: repeat until the set stops growing.
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of parents)
      if (ppid !== undefined && !inTree.has(pid) && inTree.has(ppid)) {
        inTree.add(pid);
        grew = true;
      }
  }
  return [...inTree];
}

function rssKb(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB/m);
    return line ? Number(line[1]) : 0;
  } catch {
    return 0;
  }
}

/** Resident set size (KiB) of `root` and its descendants together. */
export function treeRssKb(root: number): number {
  return treePids(root).reduce((sum, pid) => sum + rssKb(pid), 0);
}
