// A worker process serving the engine-test workflows (spawned by integration tests).
import { runWorkerProcess } from "../../workers/run-worker-process";
import { testRegistry } from "../fixtures/engine-workflows";

void runWorkerProcess(testRegistry);
