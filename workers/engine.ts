// `npm run worker`: the SDK's runifold-worker serving $RUNIFOLD_WORKFLOWS (default: the demo module),
// against DATABASE_URL or the embedded store a running `npm start` published.
import { runWorkerCli } from "@runifold/sdk";
import { resolveDatabaseUrl } from "@runifold/store/embedded";
import { readEnv } from "../lib/env";

const env = readEnv();
const args = process.argv.slice(2);
const workflows = args.length > 0 ? args : ["--workflows", env.RUNIFOLD_WORKFLOWS ?? "workflows/demo/index.ts"];
runWorkerCli(workflows, { ...process.env, DATABASE_URL: resolveDatabaseUrl(env) }).then(
  (code) => {
    if (code !== undefined) process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(`worker failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
