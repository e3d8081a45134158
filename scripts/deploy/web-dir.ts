// The web deployable as a plain directory: Next's standalone server plus what it needs beside it.
// Shared by scripts/deploy/assemble.ts (the Dockerfile's build step, tests/deploy) and
// scripts/server/build-package.ts (@runifold/server's dist/app), so the image and the package ship
// the same server.
import { cpSync, existsSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

// Bundled CommonJS (pino, zod's helpers) needs a `require` in an ES module.
const REQUIRE_BANNER =
  "import { createRequire as __rfCreateRequire } from 'node:module'; const require = __rfCreateRequire(import.meta.url);";

/** One entry point as one ES module for Node 20: what runs without tsx or the repository. */
export async function bundle(entry: string, outfile: string, external: string[], banner = ""): Promise<void> {
  await build({
    entryPoints: [path.join(ROOT, entry)],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external,
    banner: { js: `${banner}${REQUIRE_BANNER}` },
    tsconfig: path.join(ROOT, "tsconfig.json"),
    logLevel: "warning",
    legalComments: "none",
  });
}

/**
 * Writes `out`: Next's standalone server (server.js, the traced node_modules) plus .next/static and
 * public/, the migrations in db/migrations, and the bundled entry points start.mjs (the web process:
 * checks its environment, waits for a migrated store, then server.js), migrate.mjs (the one-shot
 * migrate job) and runifold.mjs (the admin CLI). Fails when `next build` has not run.
 */
export async function assembleWeb(out: string): Promise<void> {
  const standalone = path.join(ROOT, ".next", "standalone");
  if (!existsSync(path.join(standalone, "server.js")))
    throw new Error(
      `no ${path.relative(ROOT, standalone)}/server.js: run \`next build\` first (next.config.ts has output: "standalone")`,
    );
  rmSync(out, { recursive: true, force: true });
  // verbatimSymlinks: the trace links packages (.next/node_modules/postgres-<hash> → ../../node_modules/postgres);
  // resolved, those links would point back into this checkout instead of into the copy.
  cpSync(standalone, out, { recursive: true, verbatimSymlinks: true });
  // Next leaves the browser assets out of standalone output: the server serves them from beside itself.
  cpSync(path.join(ROOT, ".next", "static"), path.join(out, ".next", "static"), { recursive: true });
  if (existsSync(path.join(ROOT, "public"))) cpSync(path.join(ROOT, "public"), path.join(out, "public"), { recursive: true });
  // The migrations (@runifold/store's), for migrate.mjs beside them; drizzle-kit's snapshots are a
  // development aid. The server itself never reads them: /api/health compares the journal inlined at build.
  rmSync(path.join(out, "db"), { recursive: true, force: true });
  cpSync(path.join(ROOT, "packages", "store", "migrations"), path.join(out, "db", "migrations"), {
    recursive: true,
    filter: (source) => !/_snapshot\.json$/.test(source),
  });
  // Sources the trace picked up through dynamic imports; the server never loads a .ts file.
  rmSync(path.join(out, "packages"), { recursive: true, force: true });
  // postgres.js stays a package (the standalone trace ships it); everything else is bundled.
  await bundle("scripts/deploy/web-start.ts", path.join(out, "start.mjs"), ["postgres", "./server.js"]);
  await bundle("scripts/migrate.ts", path.join(out, "migrate.mjs"), ["postgres"]);
  await bundle("cli/main.ts", path.join(out, "runifold.mjs"), ["postgres"]);
}
