// Turns a built checkout (`next build` done) into the two deployables the Dockerfile ships, as plain
// directories (docs/deploy.md). The Dockerfile runs exactly this, and tests/deploy runs it into
// empty temporary directories, so what the images hold is tested without a container runtime.
//
//   tsx scripts/deploy/assemble.ts --web <dir> [--worker <dir>] [--sdk-tarball <file.tgz>]
//
// <web>:    Next's standalone server (server.js, the traced node_modules) plus .next/static and
//           public/, the migrations, and three bundled entry points: start.mjs (the web process),
//           migrate.mjs (the one-shot migrate job) and runifold.mjs (the admin CLI).
// <worker>: a project with @runifold/sdk installed from its packed tarball (npm pack, or the one
//           given), zod, and the demo workflows bundled to workflows/index.js.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { assembleWeb, bundle, ROOT } from "./web-dir";

const log = (line: string) => process.stdout.write(`[assemble] ${line}\n`);

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} (in ${cwd}) exited ${result.status}`);
  return result.stdout;
}

async function assembleWorker(out: string, sdkTarball?: string): Promise<void> {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  let tarball = sdkTarball;
  if (!tarball) {
    // `prepack` builds the SDK's dist/ first, so the tarball holds what this checkout builds.
    const packed = run("npm", ["pack", "-w", "@runifold/sdk", "--pack-destination", out, "--silent"], ROOT)
      .trim()
      .split("\n")
      .at(-1);
    tarball = path.join(out, packed ?? "");
  } else {
    copyFileSync(tarball, path.join(out, path.basename(tarball)));
    tarball = path.join(out, path.basename(tarball));
  }
  const rootManifest = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  writeFileSync(
    path.join(out, "package.json"),
    `${JSON.stringify(
      {
        name: "runifold-worker-image",
        private: true,
        type: "module",
        // zod at the app's exact version: definitions and the SDK share one copy (npm dedupes).
        dependencies: { "@runifold/sdk": `file:./${path.basename(tarball)}`, zod: rootManifest.dependencies.zod },
      },
      null,
      2,
    )}\n`,
  );
  run("npm", ["install", "--omit=dev", "--no-audit", "--no-fund", "--loglevel=warn"], out);
  // The demo module, as a team ships its own: built JS importing @runifold/sdk and zod from node_modules.
  await bundle("workflows/demo/index.ts", path.join(out, "workflows", "index.js"), ["@runifold/sdk", "zod"]);
  log(`worker: ${out} (node node_modules/@runifold/sdk/dist/bin/runifold-worker.js --workflows workflows/index.js)`);
}

async function main() {
  const { values } = parseArgs({
    options: { web: { type: "string" }, worker: { type: "string" }, "sdk-tarball": { type: "string" } },
  });
  if (!values.web && !values.worker)
    throw new Error("usage: assemble.ts --web <dir> [--worker <dir>] [--sdk-tarball <file.tgz>]");
  if (values.web) {
    const out = path.resolve(values.web);
    await assembleWeb(out);
    log(`web: ${out} (node start.mjs | node migrate.mjs | node runifold.mjs)`);
  }
  if (values.worker)
    await assembleWorker(path.resolve(values.worker), values["sdk-tarball"] && path.resolve(values["sdk-tarball"]));
}

main().catch((error) => {
  process.stderr.write(`assemble: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
