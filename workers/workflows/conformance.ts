import type { AnyWorkflow } from "../../lib/engine/workflow";

/** The conformance suite's fixture tools as real workflows (filled in with the MCP endpoint). */
export const conformanceWorkflows: AnyWorkflow[] = [];
