// A worker process serving approval-flow (spawned by approvals-crash.test.ts, which kills it with SIGKILL).
import { runWorkerProcess } from "../../workers/run-worker-process";
import { approvalRegistry } from "./approval-workflow";

void runWorkerProcess(approvalRegistry);
