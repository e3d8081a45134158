import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildState } from "./build-freshness";

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A checkout whose build was made at `builtAt` and whose files were all last changed an hour before. */
function checkout(builtAt: Date) {
  root = mkdtempSync(path.join(os.tmpdir(), "runifold-build-"));
  const earlier = new Date(builtAt.getTime() - 3_600_000);
  for (const file of ["app/page.tsx", "lib/mcp/index.ts", "packages/sdk/src/index.ts", "package-lock.json"]) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), "x");
    utimesSync(path.join(root, file), earlier, earlier);
  }
  mkdirSync(path.join(root, ".next"));
  writeFileSync(path.join(root, ".next", "BUILD_ID"), "id");
  utimesSync(path.join(root, ".next", "BUILD_ID"), builtAt, builtAt);
}

const touch = (file: string, at: Date) => {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), "y");
  utimesSync(path.join(root, file), at, at);
};

describe("npm start's build check", () => {
  const builtAt = new Date("2026-12-01T10:00:00Z");
  const later = new Date("2026-12-01T11:00:00Z");

  it("builds when there is no build, and not when nothing changed since", () => {
    checkout(builtAt);
    expect(buildState(root)).toEqual({ kind: "fresh" });
    rmSync(path.join(root, ".next", "BUILD_ID"));
    expect(buildState(root)).toEqual({ kind: "missing" });
  });

  it("rebuilds after a source of the app, a package's source or the lockfile changed, naming it", () => {
    checkout(builtAt);
    touch("packages/sdk/src/worker.ts", later);
    expect(buildState(root)).toEqual({ kind: "stale", changed: path.join("packages", "sdk", "src", "worker.ts") });
    checkout(builtAt);
    touch("package-lock.json", later);
    expect(buildState(root)).toEqual({ kind: "stale", changed: "package-lock.json" });
  });

  it("ignores what the web does not bundle: tests, dependencies, the packages' own builds", () => {
    checkout(builtAt);
    touch("lib/mcp/auth-gate.test.ts", later);
    touch("packages/sdk/node_modules/x/index.js", later);
    touch("packages/sdk/dist/index.js", later);
    touch("tests/mcp/a.test.ts", later);
    expect(buildState(root)).toEqual({ kind: "fresh" });
  });
});
