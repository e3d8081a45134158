import type postgres from "postgres";

/**
 * What runs look like in the throughput cases. `{}` inputs hid what a real input costs (review 3,
 * E11: every index entry a write adds, the GIN over the input one per JSON path), and one tenant hid
 * what many cost (E2: claims walked every tenant holding a parked run).
 */
export type RunShape = {
  /** A label for the case's note. */
  label: string;
  input: Record<string, unknown>;
  /** Tenants the producers create runs for, round robin; each also holds one run asleep until tomorrow. */
  tenants: number;
};

/** A 200-field input, about 4.6 KB of JSON: what a real form or an agent's tool arguments look like. */
export const WIDE_INPUT: Record<string, string> = Object.fromEntries(
  Array.from({ length: 200 }, (_, n) => [`field_${n}`, `value of field number ${n}`]),
);

export const ONE_TENANT_EMPTY: RunShape = { label: "one tenant, input {}", input: {}, tenants: 1 };

/**
 * Creates `shape.tenants` tenants beside the bench tenant, each with a parked run of `workflowKey`
 * (asleep until tomorrow), and returns the tenant ids the producers use (the bench tenant alone for
 * one tenant).
 */
export async function tenantsFor(
  sql: postgres.Sql,
  shape: RunShape,
  benchTenant: string,
  workflowKey: string,
): Promise<string[]> {
  if (shape.tenants <= 1) return [benchTenant];
  const [name, version] = workflowKey.split("@");
  const rows = await sql<{ id: string }[]>`
    INSERT INTO tenants (slug, name) SELECT 'bench-' || g, 'Bench ' || g FROM generate_series(1, ${shape.tenants}) g RETURNING id`;
  const ids = rows.map((row) => row.id);
  await sql`
    INSERT INTO runs (id, tenant_id, workflow_name, workflow_version, workflow_key, status, input, origin, checkpoints, claimable_at)
    SELECT gen_random_uuid(), t, ${name as string}, ${Number(version)}, ${workflowKey}, 'sleeping', ${sql.json(shape.input as postgres.JSONValue)},
           'engine', 1, now() + interval '1 day'
    FROM unnest(${ids}::uuid[]) t`;
  await sql`ANALYZE`;
  return ids;
}
