import "server-only";
import type { RunStatus } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import type { Operator } from "../../auth";
import {
  listRetentionRunsForTenants,
  listTombstonesInTenants,
  readRetentionFence,
  readRetentionSettings,
  type TombstoneDetail,
} from "../../tasks";

export const RETENTION_RUNS_SHOWN = 20;
export const TOMBSTONE_PAGE_SIZE = 25;

export type RetentionTenantItem = {
  id: string;
  slug: string;
  name: string;
  retentionMs: number;
  retention: string;
  maxTtlMs: number;
  maxTtl: string;
};

export type RetentionRunItem = {
  id: string;
  status: string;
  dryRun: boolean;
  /** Runs of the operator's tenants purged (admins: every tenant); null for a non-admin's view of a dry run. */
  purged: number | null;
  batches: number;
  duration: string | null;
  startedAt: string;
  finishedAt: string | null;
  holder: string;
  epoch: number;
};

export type TombstoneItem = {
  runId: string;
  tenantSlug: string;
  tool: string | null;
  routeRevision: number | null;
  workflowKey: string;
  finalStatus: RunStatus;
  createdAt: string;
  finishedAt: string | null;
  purgedAt: string;
  /** Hex SHA-256 of the final result (null: the run had no terminal event to digest). */
  resultDigest: string | null;
  purgeEpoch: number;
};

export type RetentionView = {
  /** `all` for admins; `member` = counts and lists cover the operator's tenants only. */
  scope: "all" | "member";
  tenants: RetentionTenantItem[];
  fence: { epoch: number; holder: string | null; acquiredAt: string | null };
  runs: RetentionRunItem[];
  tombstones: TombstoneItem[];
  /** Cursor of the next (older) page of tombstones, if any. */
  next: string | null;
  /** The URL's cursor was not one this page issued: the first page is shown instead. */
  badCursor: boolean;
};

const iso = (value: Date | null) => (value ? new Date(value).toISOString() : null);

/** A duration as an operator reads it: "850 ms", "4.2 s", "12 min", "36 h", "7 days". */
export function formatMs(ms: number): string {
  const short = (value: number) => String(+value.toFixed(1));
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${short(ms / 1_000)} s`;
  if (ms < 3_600_000) return `${short(ms / 60_000)} min`;
  if (ms < 72 * 3_600_000) return `${short(ms / 3_600_000)} h`;
  return `${short(ms / 86_400_000)} days`;
}

export function toTombstoneItem(t: TombstoneDetail): TombstoneItem {
  return {
    runId: t.runId,
    tenantSlug: t.tenantSlug,
    tool: t.toolName,
    routeRevision: t.routeRevision,
    workflowKey: t.workflowKey,
    finalStatus: t.finalStatus,
    createdAt: iso(t.createdAt) as string,
    finishedAt: iso(t.finishedAt),
    purgedAt: iso(t.purgedAt) as string,
    resultDigest: t.resultDigest,
    purgeEpoch: t.purgeEpoch,
  };
}

/**
 * The retention page: settings of the operator's tenants, the fence, the last cleaner passes
 * (purged counts recounted for the operator's tenants) and one keyset page of their tombstones.
 * Tenant scope is in every query (`operator.tenantIds`, null for admins).
 */
export async function presentRetention(
  sql: SqlHandle,
  operator: Operator,
  params: { cursor?: string } = {},
): Promise<RetentionView> {
  const scope = operator.tenantIds;
  const [settings, fence, runs] = await Promise.all([
    readRetentionSettings(sql, scope === null ? {} : { tenantIds: scope }),
    readRetentionFence(sql),
    listRetentionRunsForTenants(sql, { tenantIds: scope, limit: RETENTION_RUNS_SHOWN }),
  ]);
  let cursor = params.cursor || undefined;
  let badCursor = false;
  let page: Awaited<ReturnType<typeof listTombstonesInTenants>>;
  try {
    page = await listTombstonesInTenants(sql, { tenantIds: scope, limit: TOMBSTONE_PAGE_SIZE, cursor });
  } catch (error) {
    if (cursor === undefined || !(error instanceof Error) || error.message !== "Invalid tombstone cursor") throw error;
    badCursor = true;
    cursor = undefined;
    page = await listTombstonesInTenants(sql, { tenantIds: scope, limit: TOMBSTONE_PAGE_SIZE });
  }
  return {
    scope: scope === null ? "all" : "member",
    tenants: settings.map((t) => ({
      id: t.tenantId,
      slug: t.slug,
      name: t.name,
      retentionMs: t.retentionMs,
      retention: formatMs(t.retentionMs),
      maxTtlMs: t.maxTtlMs,
      maxTtl: formatMs(t.maxTtlMs),
    })),
    fence: { epoch: fence.epoch, holder: fence.holder, acquiredAt: iso(fence.acquiredAt) },
    runs: runs.map((r) => ({
      id: r.id,
      status: r.status,
      dryRun: r.dryRun,
      purged: r.purged,
      batches: r.batches,
      duration: r.durationMs === null ? null : formatMs(r.durationMs),
      startedAt: iso(r.startedAt) as string,
      finishedAt: iso(r.finishedAt),
      holder: r.holder,
      epoch: r.epoch,
    })),
    tombstones: page.items.map(toTombstoneItem),
    next: page.nextCursor ?? null,
    badCursor,
  };
}
