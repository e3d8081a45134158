import { claimRuns } from "@runifold/sdk/testing";
import type postgres from "postgres";

/**
 * `count` tenants (slugs `<prefix>-<n>`) that each hold parked runs of `workflowKey` as the engine
 * leaves them, none due: one asleep until tomorrow, one waiting for an answer with a timeout
 * tomorrow, one waiting for a signal without a timeout, and one leased by a live worker for an hour
 * (taken by a real claim, so its row is exactly what a claim writes). What a product with a nightly
 * workflow or a pending approval per tenant looks like; a claim used to walk every one of them
 * (review 3, E2). Returns the tenant ids.
 */
export async function parkedTenants(
  sql: postgres.Sql,
  params: { count: number; prefix: string; workflowKey: string },
): Promise<string[]> {
  const [name, version] = params.workflowKey.split("@");
  const tenants = await sql<{ id: string }[]>`
    INSERT INTO tenants (slug, name)
    SELECT ${params.prefix} || '-' || g, ${params.prefix} || ' ' || g FROM generate_series(1, ${params.count}) g
    RETURNING id`;
  const ids = tenants.map((tenant) => tenant.id);
  const parked = (status: string, claimableAt: string) =>
    sql.unsafe(
      `INSERT INTO runs (id, tenant_id, workflow_name, workflow_version, workflow_key, status, input, origin, checkpoints, claimable_at)
       SELECT gen_random_uuid(), t, $2, $3, $4, '${status}', '{}', 'engine', 1, ${claimableAt} FROM unnest($1::uuid[]) t`,
      [ids, name as string, Number(version), params.workflowKey],
    );
  await parked("sleeping", "now() + interval '1 day'");
  await parked("waiting_input", "now() + interval '1 day'");
  await parked("waiting_signal", "NULL");
  await parked("queued", "now() - interval '1 hour'");
  await sql`ANALYZE runs`;
  const leased = await claimRuns(sql, {
    workerId: `${params.prefix}-live-worker`,
    workflowKeys: [params.workflowKey],
    limit: ids.length,
    leaseMs: 3_600_000,
  });
  if (leased.length !== ids.length) throw new Error(`leased ${leased.length} of ${ids.length} parked tenants' runs`);
  await sql`ANALYZE`;
  return ids;
}
