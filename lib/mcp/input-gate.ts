import type { RouteRow } from "../../db/queries/routes";
import { elicitationModes } from "./input-capabilities";
import { isRecord } from "./json-rpc";

/**
 * Whether a route's workflow may ask its caller questions, from what its definition DECLARES
 * (`defineWorkflow({ asks })`, published with it and read with the route): preflight requests are
 * questions; a definition that left `asks` out — or a version nobody published — may ask anything.
 * A declaration, not history, so a fresh server decides exactly as a busy one (review3 D4).
 * Approvals (`asks.approval`) are decided by operators, never by the caller's client: they need no
 * client capability.
 */
export function routeMayAsk(route: Pick<RouteRow, "preflight" | "asks">): boolean {
  if (Object.keys(route.preflight ?? {}).length > 0) return true;
  return route.asks?.input ?? true;
}

/**
 * What a client must declare, and did not, to be asked a workflow's questions (form-mode
 * elicitation: client/elicitation.mdx "an empty capabilities object is equivalent to declaring
 * support for form mode only"), as a `requiredCapabilities` map for -32021: `{}` when it can answer,
 * `{elicitation: {}}` when it declared no elicitation, `{elicitation: {form: {}}}` when it declared
 * other modes only.
 */
export function missingForQuestions(declared: Record<string, unknown>): Record<string, unknown> {
  if (elicitationModes(declared).form) return {};
  return { elicitation: isRecord(declared.elicitation) ? { form: {} } : {} };
}
