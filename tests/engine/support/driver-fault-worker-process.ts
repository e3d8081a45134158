// A worker process serving store-refusals.test.ts's driver-fault workflow: the throw reaches the
// process's last-resort handlers, which a test runner's own would intercept in-process.
import { runWorkerProcess } from "../../../workers/run-worker-process";
import { driverFaultRegistry } from "./driver-fault-workflow";

void runWorkerProcess(driverFaultRegistry);
