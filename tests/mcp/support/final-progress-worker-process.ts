// A worker process for ordinary-final-progress.test.ts: the run ends while the test process (and
// the web handler in it) is held busy, which an in-process worker would be too.
import { runWorkerProcess } from "../../../workers/run-worker-process";
import { finalProgressRegistry } from "./final-progress-workflow";

void runWorkerProcess(finalProgressRegistry);
