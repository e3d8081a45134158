import type { RouteRow } from "../../../db/queries/routes";
import type { McpDeps } from "../mcp-deps";

/** How many of the route's latest runs are looked at for the input requests its workflow makes. */
const OBSERVED_RUNS = 200;
/** Workflows seen to ask, by workflow key: a workflow version's code does not change under it. */
const seen = new Map<string, Set<string>>();
/**
 * Workflows not seen to ask, by workflow key, with when that was looked up: looked up again only
 * after this long. The look-up reads the route's latest runs' inputs (about 1.3 ms, the dearest part
 * of a tools/call from a client without elicitation); within the window a workflow that has just
 * asked for the first time is let through, as its first runs are anyway.
 */
const notSeenUntil = new Map<string, number>();
const NOT_SEEN_TTL_MS = 1_000;
const MAX_REMEMBERED = 10_000;

/**
 * The input methods (elicitation/create, …) a route's workflow may ask its caller, so that a
 * tools/call that cannot answer them is refused with -32021 up front (2026-07-28 basic/index.mdx:
 * "If processing a request requires a capability the client did not include … MUST return -32021").
 *
 * Declared: the published preflight requests. Observed: the requests the workflow made in the
 * route's latest runs — the engine's definition does not yet declare what a workflow may ask
 * mid-run (see docs/mcp-legacy.md "Capability gating"), so until it does a workflow's first runs
 * are let through. Only consulted when the request lacks a capability, so clients that declare
 * elicitation pay nothing; a workflow not seen to ask is looked up at most once a second.
 */
export async function routeInputMethods(deps: McpDeps, route: RouteRow): Promise<Set<string>> {
  const methods = new Set<string>();
  for (const request of Object.values(route.preflight ?? {})) {
    const method = (request as { method?: unknown }).method;
    if (typeof method === "string") methods.add(method);
  }
  const workflowKey = `${route.workflow_name}@${route.workflow_version}`;
  const known = seen.get(workflowKey);
  if (known) {
    for (const method of known) methods.add(method);
    return methods;
  }
  if ((notSeenUntil.get(workflowKey) ?? 0) > performance.now()) return methods;
  // Bounded: the newest runs of this route (runs_tenant_route_created_idx), then their inputs by key.
  const rows = await deps.sql.unsafe<{ method: string }[]>(
    `SELECT DISTINCT i.request->>'method' AS method
       FROM (SELECT id FROM runs WHERE tenant_id = $1 AND route_id = $2 ORDER BY created_at DESC LIMIT ${OBSERVED_RUNS}) r
       JOIN run_inputs i ON i.run_id = r.id`,
    [route.tenant_id, route.id],
  );
  const observed = new Set(rows.map((row) => row.method).filter((m): m is string => typeof m === "string"));
  // What was seen is remembered; a workflow not seen to ask yet is looked at again after a moment.
  if (seen.size > MAX_REMEMBERED) seen.clear();
  if (notSeenUntil.size > MAX_REMEMBERED) notSeenUntil.clear();
  if (observed.size > 0) {
    seen.set(workflowKey, observed);
    notSeenUntil.delete(workflowKey);
  } else notSeenUntil.set(workflowKey, performance.now() + NOT_SEEN_TTL_MS);
  for (const method of observed) methods.add(method);
  return methods;
}
