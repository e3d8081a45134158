import type { RunStatus } from "@runifold/sdk";
import { isUuid, type SqlHandle } from "@runifold/store";
import type postgres from "postgres";

/**
 * Read models for the operator UI's retention pages (framework-free: plain rows in, plain objects
 * out). Writes belong to lib/engine/retention; nothing here changes state.
 */

export type RetentionSettings = { tenantId: string; slug: string; name: string; retentionMs: number; maxTtlMs: number };

/** Retention and handle-lifetime settings, for the given tenants (an operator's) or all. */
export async function readRetentionSettings(sql: SqlHandle, params: { tenantIds?: string[] } = {}): Promise<RetentionSettings[]> {
  const rows = await sql.unsafe<{ id: string; slug: string; name: string; retention_ms: number; max_ttl_ms: number }[]>(
    `SELECT id, slug, name, retention_ms::float8 AS retention_ms, max_ttl_ms::float8 AS max_ttl_ms FROM tenants
     WHERE $1::uuid[] IS NULL OR id = ANY($1::uuid[]) ORDER BY slug`,
    [params.tenantIds ?? null],
  );
  return rows.map((r) => ({ tenantId: r.id, slug: r.slug, name: r.name, retentionMs: r.retention_ms, maxTtlMs: r.max_ttl_ms }));
}

export type RetentionRunView = {
  id: string;
  epoch: number;
  holder: string;
  dryRun: boolean;
  status: string;
  purged: number;
  batches: number;
  startedAt: Date;
  finishedAt: Date | null;
  durationMs: number | null;
};

/** The last `limit` cleaner runs, newest first (a `running` one shows its live count). */
export async function listRetentionRuns(sql: SqlHandle, params: { limit?: number } = {}): Promise<RetentionRunView[]> {
  const rows = await sql.unsafe(
    `SELECT id, epoch::float8 AS epoch, holder, dry_run, status, purged, batches, started_at, finished_at, duration_ms
     FROM retention_runs ORDER BY started_at DESC, id DESC LIMIT $1`,
    [clampLimit(params.limit, 20)],
  );
  return rows.map(toRetentionRunView);
}

export type ScopedRetentionRunView = Omit<RetentionRunView, "purged"> & {
  /** Runs of the given tenants this pass purged; `null` for a dry run (its count covers every tenant). */
  purged: number | null;
};

/**
 * The last `limit` cleaner runs as seen from some tenants: the pass itself (status, batches,
 * duration, holder) is shared, but its purged count is recounted from the tombstones it wrote for
 * those tenants (`purge_epoch` is the pass's own epoch, unique to every real pass; the time window
 * only lets the (tenant_id, purged_at) index bound the count). `tenantIds: null` = every tenant,
 * the recorded total.
 */
export async function listRetentionRunsForTenants(
  sql: SqlHandle,
  params: { tenantIds: string[] | null; limit?: number },
): Promise<ScopedRetentionRunView[]> {
  const rows = await sql.unsafe(
    `SELECT rr.id, rr.epoch::float8 AS epoch, rr.holder, rr.dry_run, rr.status, rr.batches, rr.started_at, rr.finished_at, rr.duration_ms,
            CASE WHEN $2::uuid[] IS NULL THEN rr.purged
                 WHEN rr.dry_run THEN NULL
                 ELSE (SELECT count(*)::int FROM tombstones tb
                       WHERE tb.tenant_id = ANY($2::uuid[]) AND tb.purge_epoch = rr.epoch
                         AND tb.purged_at >= rr.started_at - interval '1 second'
                         AND tb.purged_at <= coalesce(rr.finished_at, 'infinity'::timestamptz) + interval '1 second')
            END AS purged
     FROM retention_runs rr ORDER BY rr.started_at DESC, rr.id DESC LIMIT $1`,
    [clampLimit(params.limit, 20), params.tenantIds],
  );
  return rows.map(toRetentionRunView);
}

/** Who holds the fencing epoch now (the last cleaner to start a real pass). */
export async function readRetentionFence(
  sql: SqlHandle,
): Promise<{ epoch: number; holder: string | null; acquiredAt: Date | null }> {
  const rows = await sql.unsafe("SELECT epoch::float8 AS epoch, holder, acquired_at FROM retention_fence WHERE id = 1");
  const row = rows[0];
  return { epoch: row?.epoch ?? 0, holder: row?.holder ?? null, acquiredAt: row?.acquired_at ?? null };
}

export type TombstoneView = {
  runId: string;
  tenantId: string;
  routeId: string | null;
  workflowKey: string;
  finalStatus: RunStatus;
  createdAt: Date;
  finishedAt: Date | null;
  purgedAt: Date;
  resultDigest: string | null;
  purgeEpoch: number;
};

const TOMBSTONE_COLUMNS =
  "run_id, tenant_id, route_id, workflow_key, final_status, created_at, finished_at, purged_at, result_digest, purge_epoch::float8 AS purge_epoch";

// biome-ignore lint/suspicious/noExplicitAny: a row of TOMBSTONE_COLUMNS
function toTombstone(r: any): TombstoneView {
  return {
    runId: r.run_id,
    tenantId: r.tenant_id,
    routeId: r.route_id,
    workflowKey: r.workflow_key,
    finalStatus: r.final_status,
    createdAt: r.created_at,
    finishedAt: r.finished_at,
    purgedAt: r.purged_at,
    resultDigest: r.result_digest,
    purgeEpoch: r.purge_epoch,
  };
}

/**
 * A purged task's page: "purged at X with final status Y". Scoped by tenant like every task read,
 * so another tenant's tombstone is simply not found.
 */
export async function readTombstone(
  sql: SqlHandle,
  params: { tenantId: string; runId: string },
): Promise<TombstoneView | undefined> {
  if (!isUuid(params.runId)) return undefined;
  const rows = await sql.unsafe(`SELECT ${TOMBSTONE_COLUMNS} FROM tombstones WHERE run_id = $1 AND tenant_id = $2`, [
    params.runId,
    params.tenantId,
  ]);
  return rows[0] ? toTombstone(rows[0]) : undefined;
}

export type TombstonePage = { items: TombstoneView[]; nextCursor?: string };

/**
 * A tenant's tombstones, newest purge first, keyset-paginated on (purged_at, run_id): one batch
 * gives thousands of rows the same purged_at, so run_id is the tiebreaker that keeps pages exact.
 */
export async function listTombstones(
  sql: SqlHandle,
  params: { tenantId: string; limit?: number; cursor?: string },
): Promise<TombstonePage> {
  const limit = clampLimit(params.limit, 50);
  const after = params.cursor === undefined ? undefined : decodeTombstoneCursor(params.cursor);
  if (params.cursor !== undefined && !after) throw new Error("Invalid tombstone cursor");
  const rows = await sql.unsafe(
    `SELECT ${TOMBSTONE_COLUMNS} FROM tombstones
     WHERE tenant_id = $1 AND ($2::timestamptz IS NULL OR (purged_at, run_id) < ($2::timestamptz, $3::uuid))
     ORDER BY purged_at DESC NULLS LAST, run_id DESC LIMIT $4`,
    [params.tenantId, after?.purgedAt ?? null, after?.runId ?? null, limit + 1],
  );
  const items = rows.slice(0, limit).map(toTombstone);
  const last = items.at(-1);
  return rows.length > limit && last ? { items, nextCursor: encodeTombstoneCursor(last) } : { items };
}

/** A tombstone with what the UI shows next to it: the tenant's slug and the route revision's tool. */
export type TombstoneDetail = TombstoneView & {
  tenantSlug: string;
  toolName: string | null;
  routeRevision: number | null;
  retentionMs: number;
};

const DETAIL_COLUMNS =
  "t.slug AS tenant_slug, t.retention_ms::float8 AS retention_ms, rt.tool_name, rt.revision AS route_revision";

// biome-ignore lint/suspicious/noExplicitAny: a row of TOMBSTONE_COLUMNS + DETAIL_COLUMNS
function toTombstoneDetail(r: any): TombstoneDetail {
  return {
    ...toTombstone(r),
    tenantSlug: r.tenant_slug,
    toolName: r.tool_name,
    routeRevision: r.route_revision,
    retentionMs: r.retention_ms,
  };
}

/**
 * A purged task's page when the operator's tenants are all it knows (`tenantIds: null` = every
 * tenant): the scope is in the WHERE clause, so another tenant's tombstone is not found exactly
 * like an ID that never existed.
 */
export async function findTombstoneInTenants(
  sql: SqlHandle,
  params: { tenantIds: string[] | null; runId: string },
): Promise<TombstoneDetail | undefined> {
  if (!isUuid(params.runId)) return undefined;
  const rows = await sql.unsafe(
    `SELECT ${prefixed("tb")}, ${DETAIL_COLUMNS}
     FROM tombstones tb JOIN tenants t ON t.id = tb.tenant_id LEFT JOIN routes rt ON rt.id = tb.route_id
     WHERE tb.run_id = $1 AND ($2::uuid[] IS NULL OR tb.tenant_id = ANY($2::uuid[]))`,
    [params.runId, params.tenantIds],
  );
  return rows[0] ? toTombstoneDetail(rows[0]) : undefined;
}

export type TombstoneDetailPage = { items: TombstoneDetail[]; nextCursor?: string };

/**
 * The tombstones of several tenants (`tenantIds: null` = every tenant) as one list, newest purge
 * first, keyset-paginated on (purged_at, run_id) with the same cursors as listTombstones. Each
 * tenant's page is read through its own (tenant_id, purged_at) index range (LATERAL, at most
 * `limit + 1` rows per tenant) and the pages are merged, so no page sorts a whole table.
 * `NULLS LAST` (purged_at is never null) matches the index's order; without it Postgres sorts
 * every tombstone of the tenant for each page.
 */
export async function listTombstonesInTenants(
  sql: SqlHandle,
  params: { tenantIds: string[] | null; limit?: number; cursor?: string },
): Promise<TombstoneDetailPage> {
  const limit = clampLimit(params.limit, 50);
  const after = params.cursor === undefined ? undefined : decodeTombstoneCursor(params.cursor);
  if (params.cursor !== undefined && !after) throw new Error("Invalid tombstone cursor");
  const rows = await sql.unsafe(
    `SELECT x.*, ${DETAIL_COLUMNS}
     FROM tenants t
     CROSS JOIN LATERAL (
       SELECT ${prefixed("tb")} FROM tombstones tb
       WHERE tb.tenant_id = t.id
         AND ($2::timestamptz IS NULL OR (tb.purged_at <= $2::timestamptz AND (tb.purged_at, tb.run_id) < ($2::timestamptz, $3::uuid)))
       ORDER BY tb.purged_at DESC NULLS LAST, tb.run_id DESC LIMIT $4
     ) x
     LEFT JOIN routes rt ON rt.id = x.route_id
     WHERE $1::uuid[] IS NULL OR t.id = ANY($1::uuid[])
     ORDER BY x.purged_at DESC NULLS LAST, x.run_id DESC LIMIT $4`,
    [params.tenantIds, after?.purgedAt ?? null, after?.runId ?? null, limit + 1],
  );
  const items = rows.slice(0, limit).map(toTombstoneDetail);
  const last = items.at(-1);
  return rows.length > limit && last ? { items, nextCursor: encodeTombstoneCursor(last) } : { items };
}

/** TOMBSTONE_COLUMNS qualified by a table alias (the detail queries join tenants and routes). */
function prefixed(alias: string): string {
  return TOMBSTONE_COLUMNS.split(", ")
    .map((column) => `${alias}.${column}`)
    .join(", ");
}

function encodeTombstoneCursor(last: TombstoneView): string {
  return Buffer.from(JSON.stringify([last.purgedAt.toISOString(), last.runId])).toString("base64url");
}

function decodeTombstoneCursor(cursor: string): { purgedAt: string; runId: string } | undefined {
  if (cursor.length > 200 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  try {
    const [purgedAt, runId] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown[];
    if (typeof purgedAt !== "string" || Number.isNaN(Date.parse(purgedAt))) return undefined;
    if (!isUuid(runId)) return undefined;
    return { purgedAt, runId };
  } catch {
    return undefined;
  }
}

function clampLimit(limit: number | undefined, fallback: number): number {
  return Math.min(Math.max(Math.floor(limit ?? fallback), 1), 500);
}

/** One retention_runs row (as both listings select it) to its view. */
function toRetentionRunView(r: postgres.Row) {
  return {
    id: r.id,
    epoch: r.epoch,
    holder: r.holder,
    dryRun: r.dry_run,
    status: r.status,
    purged: r.purged,
    batches: r.batches,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    durationMs: r.duration_ms,
  };
}
