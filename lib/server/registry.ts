import type { WorkflowRegistry } from "@runifold/sdk";
import { shippedWorkflows } from "../../workflows/demo";

/**
 * The workflow definitions the web tier knows (tool input schemas, preflight input requests).
 * The one place outside workers that names the demo module: the web composition root. Everything
 * below it (lib/mcp, lib/ui, lib/admin) receives the registry as a dependency.
 */
export function webRegistry(): WorkflowRegistry {
  return shippedWorkflows;
}
