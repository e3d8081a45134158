// A Runifold worker process serving the bench workflow (the same body as workers/engine.ts).
import { runWorkerProcess } from "../../workers/run-worker-process";
import { benchRegistry } from "./workflows";

runWorkerProcess(benchRegistry).catch((error) => {
  process.stderr.write(`bench worker failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
