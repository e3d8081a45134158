// A worker process serving the concurrency-key test workflows (tests/engine/concurrency-keys.test.ts spawns and SIGKILLs it).
import { runWorkerProcess } from "../../workers/run-worker-process";
import { concurrencyRegistry } from "../fixtures/concurrency-workflows";

void runWorkerProcess(concurrencyRegistry);
