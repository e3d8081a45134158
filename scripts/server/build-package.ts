// Builds @runifold/server's dist/ from this checkout's production build (its `prepack` and `build`):
//   dist/app  the web deployable, the same as the web image's (scripts/deploy/web-dir.ts): Next's
//             standalone server, .next/static, public/, the migrations and start.mjs
//   dist/bin  runifold-server.mjs, scripts/server/main.ts bundled with everything it imports
// `next build` must have run (`npm run build`); a build older than the sources is packed with a warning.
import { chmodSync, cpSync, lstatSync, readdirSync, readlinkSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { assembleWeb, bundle, ROOT } from "../deploy/web-dir";
import { buildState } from "../lib/build-freshness";

const PACKAGE = path.join(ROOT, "packages", "server");
const log = (line: string) => process.stdout.write(`[@runifold/server] ${line}\n`);

/**
 * npm pack leaves symbolic links out of a tarball, and the standalone trace links the packages it
 * keeps external (.next/node_modules/postgres-<hash> → ../../node_modules/postgres): each link inside
 * the directory becomes a copy of what it points at.
 */
function replaceLinks(dir: string, root = dir): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) {
      const target = path.resolve(dir, readlinkSync(file));
      if (!target.startsWith(root + path.sep)) throw new Error(`${file} links outside the package (${target})`);
      rmSync(file);
      cpSync(target, file, { recursive: true, dereference: true });
    } else if (entry.isDirectory()) replaceLinks(file, root);
  }
}

/** What a standalone server directory holds; anything else at its top is not read at run time. */
const SERVER_ENTRIES = new Set(["server.js", "start.mjs", "package.json", ".next", "node_modules", "public", "db"]);

/** The app's own source folders: a trace that holds them traced the whole project. */
const PROJECT_SOURCES = ["app", "lib", "tests", "scripts", "e2e"];

/**
 * What else the build's file trace picked up. A filesystem call on a path known only at run time
 * makes Turbopack trace files by pattern: unmarked, the SDK's dev loop (its workflows module's
 * `existsSync`) traced the whole project — next build printed "Dynamic filesystem access causes
 * tracing of the whole project" with the import trace — so a trace holding the app's sources fails
 * packing (the fix is a `/* turbopackIgnore: true *\/` on the call the build names). A few files
 * the SDK runtime's spawn and watch paths still match (bench/lib, test-results/ in CI) are never
 * read by the server: they are left out, with a line naming them.
 */
function dropStrays(app: string): void {
  const strays = readdirSync(app).filter((name) => !SERVER_ENTRIES.has(name));
  const sources = strays.filter((name) => PROJECT_SOURCES.includes(name));
  if (sources.length > 0)
    throw new Error(
      `the standalone trace holds the project's ${sources.join(", ")}: a dynamic filesystem call traced the whole project; next build's warning names it`,
    );
  if (strays.length === 0) return;
  log(`left out of the package (the server never reads them): ${strays.join(", ")}`);
  for (const name of strays) rmSync(path.join(app, name), { recursive: true, force: true });
}

function size(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((sum, entry) => {
    const file = path.join(dir, entry.name);
    return sum + (entry.isDirectory() ? size(file) : lstatSync(file).size);
  }, 0);
}

async function main() {
  const state = buildState(ROOT);
  if (state.kind === "stale") log(`warning: ${state.changed} changed after the last next build; packing that older build`);
  const dist = path.join(PACKAGE, "dist");
  rmSync(dist, { recursive: true, force: true });
  const app = path.join(dist, "app");
  await assembleWeb(app);
  // The bin migrates and seeds itself; the image's separate job and admin CLI are not this package's.
  // sharp (and its @img binaries) is what the trace keeps for next/image, which the console never
  // uses, and is built for this machine's platform alone.
  for (const file of ["migrate.mjs", "runifold.mjs", "node_modules/sharp", "node_modules/@img"])
    rmSync(path.join(app, file), { recursive: true, force: true });
  dropStrays(app);
  replaceLinks(app);
  const bin = path.join(dist, "bin", "runifold-server.mjs");
  await bundle("scripts/server/main.ts", bin, [], "#!/usr/bin/env node\n");
  chmodSync(bin, 0o755);
  log(
    `dist: ${(size(dist) / 1e6).toFixed(1)} MB (server.js ${statSync(path.join(app, "server.js")).isFile() ? "present" : "missing"})`,
  );
}

main().catch((error) => {
  process.stderr.write(`@runifold/server build: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
