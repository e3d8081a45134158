import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DevFileError, findDevFile, processAlive, readDevFile, removeDevFile, writeDevFile } from "./dev-file";

const INFO = {
  databaseUrl: "postgres://runifold_worker:pw@127.0.0.1:5499/runifold",
  consoleUrl: "http://127.0.0.1:3000",
  mcpUrl: "http://127.0.0.1:3000/api/mcp",
  tenant: "acme",
  apiKey: "rk_test_123",
  pid: process.pid,
  startedAt: "2026-01-01T00:00:00.000Z",
};

const dirs: string[] = [];
function tempDir() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "runifold-devfile-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("dev file", () => {
  it("writes version 1 at mode 0600 beside a .gitignore of *, and reads it back", () => {
    const dir = tempDir();
    const file = writeDevFile(dir, INFO);
    expect(file).toBe(path.join(dir, ".runifold", "dev.json"));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(path.join(dir, ".runifold", ".gitignore"), "utf8")).toMatch(/^\*$/m);
    expect(readDevFile(file)).toEqual({ version: 1, ...INFO });
  });

  it("is found from a nested directory upwards, and not found where there is none", () => {
    const dir = tempDir();
    writeDevFile(dir, INFO);
    const nested = path.join(dir, "src", "workflows");
    mkdirSync(nested, { recursive: true });
    expect(findDevFile(nested)).toBe(path.join(dir, ".runifold", "dev.json"));
    expect(findDevFile(tempDir())).toBeUndefined();
  });

  it("refuses a file of another version or without a database URL, naming the file", () => {
    const dir = tempDir();
    const file = writeDevFile(dir, INFO);
    writeFileSync(file, JSON.stringify({ ...INFO, version: 2 }));
    expect(() => readDevFile(file)).toThrow(DevFileError);
    expect(() => readDevFile(file)).toThrow(/version 2; this SDK reads version 1/);
    writeFileSync(file, JSON.stringify({ ...INFO, version: 1, databaseUrl: undefined }));
    expect(() => readDevFile(file)).toThrow(`${file}: databaseUrl is missing`);
    writeFileSync(file, "{");
    expect(() => readDevFile(file)).toThrow(/is not readable JSON/);
  });

  it("is removed only by the process that wrote it", () => {
    const dir = tempDir();
    const file = writeDevFile(dir, INFO);
    removeDevFile(dir, process.pid + 1);
    expect(readDevFile(file).pid).toBe(process.pid);
    removeDevFile(dir, process.pid);
    expect(findDevFile(dir)).toBeUndefined();
  });

  it("tells a live pid from a gone one", () => {
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(2 ** 22 + 12345)).toBe(false);
  });
});
