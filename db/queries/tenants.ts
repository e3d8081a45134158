import { isUuid, PREPARED, type SqlHandle } from "@runifold/store";

export type TenantRow = {
  id: string;
  slug: string;
  name: string;
  max_ttl_ms: number;
  retention_ms: number;
  /** Task handles for clients without tasks: companion tools listed, handles past the deadline. */
  handle_tools: boolean;
  /** At most this many runs leased at once; null: the workers' share of the fleet (packages/sdk/src/tenant-share.ts). */
  max_concurrent_runs: number | null;
  disabled_at: Date | null;
  created_at: Date;
};

const COLUMNS =
  "id, slug, name, max_ttl_ms::float8 AS max_ttl_ms, retention_ms::float8 AS retention_ms, handle_tools, max_concurrent_runs, disabled_at, created_at";

export async function createTenant(sql: SqlHandle, params: { slug: string; name: string }): Promise<TenantRow> {
  const rows = await sql.unsafe<TenantRow[]>(`INSERT INTO tenants (slug, name) VALUES ($1, $2) RETURNING ${COLUMNS}`, [
    params.slug,
    params.name,
  ]);
  return rows[0] as TenantRow;
}

export async function findTenantBySlug(sql: SqlHandle, slug: string): Promise<TenantRow | undefined> {
  const rows = await sql.unsafe<TenantRow[]>(`SELECT ${COLUMNS} FROM tenants WHERE slug = $1`, [slug]);
  return rows[0];
}

export async function listTenants(sql: SqlHandle): Promise<TenantRow[]> {
  return sql.unsafe<TenantRow[]>(`SELECT ${COLUMNS} FROM tenants ORDER BY slug`);
}

export async function findTenantById(sql: SqlHandle, id: string): Promise<TenantRow | undefined> {
  if (!isUuid(id)) return undefined;
  const rows = await sql.unsafe<TenantRow[]>(`SELECT ${COLUMNS} FROM tenants WHERE id = $1`, [id]);
  return rows[0];
}

/** A tenant by slug among `scope` (null = any): a tenant outside the scope is simply not found. */
export async function findScopedTenantBySlug(
  sql: SqlHandle,
  params: { slug: string; scope: string[] | null },
): Promise<TenantRow | undefined> {
  const rows = await sql.unsafe<TenantRow[]>(
    `SELECT ${COLUMNS} FROM tenants WHERE slug = $1 AND ($2::uuid[] IS NULL OR id = ANY($2::uuid[]))`,
    [params.slug, params.scope],
  );
  return rows[0];
}

/** Disables (or enables) a tenant: its keys, tokens and tasks then answer like an unknown tenant's. */
export async function setTenantDisabled(
  sql: SqlHandle,
  params: { tenantId: string; disabled: boolean },
): Promise<TenantRow | undefined> {
  if (!isUuid(params.tenantId)) return undefined;
  const rows = await sql.unsafe<TenantRow[]>(
    `UPDATE tenants SET disabled_at = CASE WHEN $2 THEN coalesce(disabled_at, now()) END WHERE id = $1 RETURNING ${COLUMNS}`,
    [params.tenantId, params.disabled],
  );
  return rows[0];
}

/** Turns a tenant's task handles for clients without tasks on or off (lib/mcp/handles). */
export async function setTenantHandleTools(
  sql: SqlHandle,
  params: { tenantId: string; on: boolean },
): Promise<TenantRow | undefined> {
  if (!isUuid(params.tenantId)) return undefined;
  const rows = await sql.unsafe<TenantRow[]>(`UPDATE tenants SET handle_tools = $2 WHERE id = $1 RETURNING ${COLUMNS}`, [
    params.tenantId,
    params.on,
  ]);
  return rows[0];
}

/** Sets a tenant's cap on runs leased at once; null returns it to the workers' share of the fleet. */
export async function setTenantMaxConcurrentRuns(
  sql: SqlHandle,
  params: { tenantId: string; max: number | null },
): Promise<TenantRow | undefined> {
  if (!isUuid(params.tenantId)) return undefined;
  const rows = await sql.unsafe<TenantRow[]>(`UPDATE tenants SET max_concurrent_runs = $2 WHERE id = $1 RETURNING ${COLUMNS}`, [
    params.tenantId,
    params.max,
  ]);
  return rows[0];
}

/** Whether the tenant offers task handles to clients without tasks (read per tools/list and per handle). */
export async function tenantOffersHandles(sql: SqlHandle, tenantId: string): Promise<boolean> {
  const rows = await sql.unsafe<{ handle_tools: boolean }[]>(
    "SELECT handle_tools FROM tenants WHERE id = $1",
    [tenantId],
    PREPARED,
  );
  return rows[0]?.handle_tools ?? false;
}
