// A worker process serving the fault-suite workflow (spawned and killed by tests/faults).
import { runWorkerProcess } from "../../workers/run-worker-process";
import { faultRegistry } from "./support";

void runWorkerProcess(faultRegistry);
