import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readEmbeddedUrl } from "./embedded-postgres";
import { isAlive, isOurPostmaster, stopStalePostmaster } from "./postmaster";

// Security review H2: pids read from postmaster.pid or the state file are signalled only when they
// are this cluster's postmaster. A fake `pg_ctl` records whether it was run at all.
const onLinux = existsSync("/proc/self/cmdline");

describe.skipIf(!onLinux)("stale postmaster pids", () => {
  let dir: string;
  let dataDir: string;
  let binDir: string;
  const children: ChildProcess[] = [];
  const marker = () => path.join(dir, "pg_ctl-ran");
  const spawnIdle = (command: string, args: string[], options: { argv0?: string; uid?: number; gid?: number } = {}) => {
    const child = spawn(command, args, { stdio: "ignore", ...options });
    children.push(child);
    return child.pid as number;
  };
  const writePidFile = (pid: number) => writeFileSync(path.join(dataDir, "postmaster.pid"), `${pid}\n${dataDir}\n`);

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "rf-pm-"));
    dataDir = path.join(dir, "pg");
    binDir = path.join(dir, "bin");
    mkdirSync(dataDir);
    mkdirSync(binDir);
    // Like the real one: signals the pid in $3/postmaster.pid (pg_ctl stop -D <dataDir> …).
    writeFileSync(path.join(binDir, "pg_ctl"), `#!/bin/sh\ntouch '${marker()}'\nkill "$(head -n1 "$3/postmaster.pid")"\n`, {
      mode: 0o755,
    });
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  it("never signals a foreign process named in postmaster.pid", async () => {
    const pid = spawnIdle("sleep", ["1000"]);
    writePidFile(pid);
    const lines: string[] = [];
    await stopStalePostmaster(dataDir, binDir, undefined, (l) => lines.push(l));
    expect(isAlive(pid)).toBe(true);
    expect(existsSync(marker())).toBe(false);
    expect(lines.join("\n")).toMatch(/not this cluster's postmaster/);
  });

  it("never signals a non-postgres process even when its command line names the data directory", async () => {
    const pid = spawnIdle("sh", ["-c", "sleep 1000", dataDir]);
    writePidFile(pid);
    await stopStalePostmaster(dataDir, binDir, undefined, () => {});
    expect(isAlive(pid)).toBe(true);
    expect(existsSync(marker())).toBe(false);
  });

  it.skipIf(process.getuid?.() !== 0)("never signals a `postgres` of this data directory running as another uid", async () => {
    const fake = path.join(binDir, "postgres");
    const pid = spawnIdle(process.execPath, ["-e", "setInterval(() => {}, 1000)", "--", "-D", dataDir], {
      argv0: fake,
      uid: 65534,
      gid: 65534,
    });
    await waitForCmdline(pid, dataDir);
    writePidFile(pid);
    expect(isOurPostmaster(pid, dataDir, 65534)).toBe(true);
    await stopStalePostmaster(dataDir, binDir, undefined, () => {}); // as root, expects uid 0
    expect(isAlive(pid)).toBe(true);
    expect(existsSync(marker())).toBe(false);
  });

  it("stops this data directory's own stale postmaster", async () => {
    const fake = path.join(binDir, "postgres");
    const pid = spawnIdle(process.execPath, ["-e", "setInterval(() => {}, 1000)", "--", "-D", dataDir], { argv0: fake });
    await waitForCmdline(pid, dataDir);
    writePidFile(pid);
    await stopStalePostmaster(dataDir, binDir, undefined, () => {});
    expect(existsSync(marker())).toBe(true);
    expect(isAlive(pid) && isOurPostmaster(pid, dataDir)).toBe(false);
  });

  it("does not take a state file naming a foreign pid for a live cluster", () => {
    const pid = spawnIdle("sleep", ["1000"]);
    writeFileSync(
      path.join(dir, "pg.embedded.json"),
      JSON.stringify({ url: "postgres://x@127.0.0.1:1/postgres", port: 1, dataDir, postmasterPid: pid, ownerPid: pid }),
    );
    expect(readEmbeddedUrl(dir, "pg", dir)).toBeUndefined();
    expect(isAlive(pid)).toBe(true);
  });
});

async function waitForCmdline(pid: number, dataDir: string) {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && !isOurPostmaster(pid, dataDir)) await new Promise((r) => setTimeout(r, 50));
}
