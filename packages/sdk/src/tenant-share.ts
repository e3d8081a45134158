/**
 * Per-tenant capacity (review 3, §4 "One tenant flooding"): without a cap, a tenant whose long steps
 * filled every slot left another tenant's run waiting until one of them ended, however fair the
 * order of claims. By default a tenant may hold this share of the fleet's slots (every online
 * worker's concurrency, summed), so the rest stays for the others; a tenant's own
 * `max_concurrent_runs` replaces it (`runifold tenants set <slug> --max-concurrent-runs N`).
 */
export const DEFAULT_TENANT_SHARE = 0.75;

/**
 * The cap of a tenant without its own: `share` of `fleetSlots`, at least one run; none when the
 * share is 1 (a tenant may then hold every slot, as before caps existed).
 */
export function tenantCap(fleetSlots: number, share: number): number | undefined {
  if (!(share > 0 && share <= 1)) throw new RangeError(`the tenant share must be in (0, 1], not ${share}`);
  if (share === 1) return undefined;
  return Math.max(1, Math.floor(fleetSlots * share));
}
