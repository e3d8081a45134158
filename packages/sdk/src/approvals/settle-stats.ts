/**
 * The approval metrics' store side (docs/approvals.md "Metrics", docs/observability.md): every
 * settlement adds itself, in the transaction that settles it (rows.ts settleApproval), to one row
 * of `approval_settle_stats` per tenant, way (`decisions` or `expiry`) and outcome — a count, the
 * sum of the seconds from opening to settling, and cumulative bucket counts for these upper bounds.
 * The web reads the rows at scrape time, so every instance reports the same totals, and they only
 * ever grow: retention purging runs (and their approvals) takes nothing from them.
 *
 * Changing the bounds needs a migration that empties the table: rows keep the bounds they were
 * counted with (a row whose length differs is not reported).
 */
export const APPROVAL_SETTLE_BUCKETS: readonly number[] = [
  60, 300, 900, 1_800, 3_600, 7_200, 14_400, 43_200, 86_400, 259_200, 604_800,
];
