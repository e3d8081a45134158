#!/usr/bin/env node
// `runifold` bin: runs cli/main.ts with the tsx loader, both resolved relative to this
// package (so it works from any directory, e.g. after `npm link`). Exit code and signals pass through.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const loader = import.meta.resolve("tsx");
const main = path.join(root, "cli", "main.ts");
// tsx resolves the workspace packages (@runifold/*) through this project's tsconfig paths, wherever
// the command is run from.
const env = { ...process.env, TSX_TSCONFIG_PATH: path.join(root, "tsconfig.json") };
const child = spawn(process.execPath, ["--import", loader, main, ...process.argv.slice(2)], { stdio: "inherit", env });

// Ctrl-C reaches the child directly (same process group): the first one only stops its wait, so
// SIGINT is not forwarded (that would be a second one). Signals sent to this process alone are.
process.on("SIGINT", () => {});
for (const signal of ["SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else process.exit(code ?? 1);
});
