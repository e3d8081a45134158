import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sweepAbandonedClusters } from "./abandoned-clusters";

const root = mkdtempSync(path.join(os.tmpdir(), "runifold-sweep-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The pid of a process that has exited. */
const deadPid = () => spawnSync(process.execPath, ["-e", "0"]).pid as number;

function cluster(name: string, state: { ownerPid: number; dataDir?: string }) {
  const dataDir = state.dataDir ?? path.join(root, name);
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path.join(root, `${name}.embedded.json`), JSON.stringify({ ...state, dataDir, postmasterPid: deadPid() }));
  writeFileSync(path.join(root, `${name}.password`), "x");
  return dataDir;
}

describe("sweepAbandonedClusters", () => {
  it("removes the clusters of its kind whose owner is gone, and nothing else", async () => {
    const abandoned = cluster("e2e-pg-111", { ownerPid: deadPid() });
    const live = cluster("e2e-pg-222", { ownerPid: process.pid });
    const otherKind = cluster("test-pg-333", { ownerPid: deadPid() });
    const outside = mkdtempSync(path.join(os.tmpdir(), "runifold-elsewhere-"));
    const foreignDir = cluster("e2e-pg-444", { ownerPid: deadPid(), dataDir: path.join(outside, "e2e-pg-444") });
    const lines: string[] = [];
    await sweepAbandonedClusters(root, "e2e-pg", (line) => lines.push(line));
    expect(existsSync(abandoned)).toBe(false);
    expect(existsSync(path.join(root, "e2e-pg-111.embedded.json"))).toBe(false);
    expect(existsSync(path.join(root, "e2e-pg-111.password"))).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(otherKind)).toBe(true);
    // A data directory outside the places clusters live is never deleted, whatever the state file says.
    expect(existsSync(foreignDir)).toBe(true);
    expect(lines.some((line) => line.includes("e2e-pg-111"))).toBe(true);
    rmSync(outside, { recursive: true, force: true });
  });

  it("does nothing for a data root that does not exist", async () => {
    await expect(sweepAbandonedClusters(path.join(root, "missing"), "e2e-pg", () => {})).resolves.toBeUndefined();
  });
});
