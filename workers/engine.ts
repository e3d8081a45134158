// `npm run worker`: one worker process serving every shipped workflow.

import { shippedWorkflows } from "../workflows/demo";
import { runWorkerProcess } from "./run-worker-process";

runWorkerProcess(shippedWorkflows).catch((error) => {
  process.stderr.write(`worker failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
