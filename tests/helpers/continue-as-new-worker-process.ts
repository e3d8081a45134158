// A worker process serving the continue-as-new test workflows (tests/engine/continue-as-new*.test.ts).
import { runWorkerProcess } from "../../workers/run-worker-process";
import { continueAsNewRegistry } from "../fixtures/continue-as-new-workflows";

void runWorkerProcess(continueAsNewRegistry);
