/**
 * ttlMs is how long a task handle stays usable from creation — never a deadline for the work.
 * Granted = the requested value (legacy `params.task.ttl`) capped by the route's and the tenant's
 * maximum; without a request, the cap itself.
 */
export const DEFAULT_TASK_TTL_MS = 86_400_000;

export function grantTtlMs(params: {
  requested?: number | null;
  routeMaxMs?: number | null;
  tenantMaxMs?: number | null;
}): number {
  const cap = Math.min(params.routeMaxMs ?? Number.POSITIVE_INFINITY, params.tenantMaxMs ?? DEFAULT_TASK_TTL_MS);
  const requested = params.requested ?? cap;
  return Math.max(1_000, Math.min(Math.floor(requested), cap));
}
