import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

/**
 * Whether `npm start` must run `next build`: there is no production build, or a source the build
 * bundles changed after it (a `git pull`, an edit). Judged by modification times against
 * `.next/BUILD_ID`, which `next build` writes last — so a checkout never serves a stale build, and an
 * unchanged one never pays for a rebuild. Sources: the app's own directories and the workspace
 * packages' sources, plus the files that shape the build (package-lock.json, next.config.ts, …).
 */
export type BuildState = { kind: "missing" } | { kind: "stale"; changed: string } | { kind: "fresh" };

const SOURCE_DIRS = ["app", "lib", "db", "components", "workflows", "packages"];
const SOURCE_FILES = ["package.json", "package-lock.json", "next.config.ts", "tsconfig.json", "proxy.ts", "instrumentation.ts"];
/** Never part of what the web bundles: outputs, dependencies, and the packages' own builds and tests. */
const SKIPPED = new Set(["node_modules", ".next", "dist", ".data", ".git"]);

export function buildState(root: string): BuildState {
  const buildId = path.join(root, ".next", "BUILD_ID");
  if (!existsSync(buildId)) return { kind: "missing" };
  const builtAt = statSync(buildId).mtimeMs;
  const changed = firstNewer(root, builtAt);
  return changed ? { kind: "stale", changed: path.relative(root, changed) } : { kind: "fresh" };
}

function firstNewer(root: string, builtAt: number): string | undefined {
  for (const file of SOURCE_FILES) {
    const full = path.join(root, file);
    if (existsSync(full) && statSync(full).mtimeMs > builtAt) return full;
  }
  const pending = SOURCE_DIRS.map((dir) => path.join(root, dir)).filter((dir) => existsSync(dir));
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (SKIPPED.has(entry.name)) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else if (entry.isFile() && !entry.name.endsWith(".test.ts") && statSync(full).mtimeMs > builtAt) return full;
    }
  }
  return undefined;
}
