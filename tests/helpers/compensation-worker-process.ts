// A worker process serving the compensation-test workflows (tests/engine/compensation*.test.ts spawn it).
import { runWorkerProcess } from "../../workers/run-worker-process";
import { compensationRegistry } from "../fixtures/compensation-workflows";

void runWorkerProcess(compensationRegistry);
