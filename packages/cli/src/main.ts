#!/usr/bin/env node
import { runCli } from "./run";

// The `runifold` bin of @runifold/cli: one command line, its exit code.
const code = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(`${text}\n`),
  stderr: (text) => process.stderr.write(`${text}\n`),
  env: process.env,
});
process.exitCode = code;
