// A worker process serving the primary-failover test's workflow (tests/faults/primary-failover.test.ts).
import { runWorkerProcess } from "../../workers/run-worker-process";
import { failoverRegistry } from "./failover-workflow";

void runWorkerProcess(failoverRegistry);
