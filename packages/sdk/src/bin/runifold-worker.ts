#!/usr/bin/env node
import { runWorkerCli } from "../runtime/worker-cli";

runWorkerCli(process.argv.slice(2), process.env).then(
  (code) => {
    if (code !== undefined) process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(`runifold-worker: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
