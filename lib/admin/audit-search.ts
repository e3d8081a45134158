import { z } from "zod";
import { type AuditSearchRow, searchAuditEvents } from "../../db/queries/audit-search";
import { AppError } from "../errors";
import type { AdminContext } from "./actor";
import { parseInput } from "./parse-input";

/** PostgreSQL text cannot hold U+0000: refused as a bad filter, never sent to a query (review F11). */
const noNul = (value: string) => !value.includes("\u0000");
const NUL_MESSAGE = "must not contain U+0000";

export const ZAuditSearch = z.object({
  actor: z.string().trim().min(1).max(320).refine(noNul, NUL_MESSAGE).optional(),
  action: z.string().trim().min(1).max(100).refine(noNul, NUL_MESSAGE).optional(),
  tenantId: z.uuid().optional(),
  from: z.date().optional(),
  to: z.date().optional(),
  /** Opaque: the `next` of the previous page. */
  cursor: z.string().max(200).refine(noNul, NUL_MESSAGE).optional(),
  limit: z.number().int().min(1).max(1_000).default(50),
});

export type AuditFilters = Omit<z.input<typeof ZAuditSearch>, "cursor" | "limit">;

export type AuditRecord = {
  id: number;
  at: string;
  actor: string;
  /** The operator's email when the actor is an operator that still exists. */
  operatorEmail: string | null;
  action: string;
  tenantId: string | null;
  tenantSlug: string | null;
  address: string | null;
  fields: Record<string, unknown>;
};

export type AuditPage = { entries: AuditRecord[]; next: string | null };

/** Where a page ends, (at, id), opaque to the browser. */
export function encodeAuditCursor(last: { at: string; id: number }): string {
  return Buffer.from(`${last.at}|${last.id}`).toString("base64url");
}

export function decodeAuditCursor(cursor: string): { at: Date; id: number } {
  const [at, id] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  const date = new Date(at ?? "");
  if (!id || !/^\d{1,15}$/.test(id) || Number.isNaN(date.getTime())) throw new AppError("bad_request", "Bad cursor.");
  return { at: date, id: Number(id) };
}

/**
 * One page of the stored audit trail for the filters, newest first. `scope` is the reader's tenants:
 * null for an admin (every event), a member's tenant IDs otherwise — a member then sees only the
 * events about its tenants, never the ones about no tenant (sign-ins, operators) or another's.
 */
export async function searchAudit(
  ctx: Pick<AdminContext, "sql">,
  input: z.input<typeof ZAuditSearch> & { scope: string[] | null },
): Promise<AuditPage> {
  const params = parseInput(ZAuditSearch, input);
  const rows = await searchAuditEvents(ctx.sql, {
    scope: input.scope,
    tenantId: params.tenantId,
    actor: params.actor,
    action: params.action,
    from: params.from,
    to: params.to,
    after: params.cursor ? decodeAuditCursor(params.cursor) : undefined,
    limit: params.limit + 1,
  });
  const entries = rows.slice(0, params.limit).map(toRecord);
  const last = entries.at(-1);
  return { entries, next: rows.length > params.limit && last ? encodeAuditCursor(last) : null };
}

/**
 * Every matching event, newest first, a page at a time (for the CSV export): memory stays at one
 * page however long the trail is, and each page is one keyset query.
 */
export async function* iterateAudit(
  ctx: Pick<AdminContext, "sql">,
  input: AuditFilters & { scope: string[] | null },
  pageSize = 1_000,
): AsyncGenerator<AuditRecord> {
  let cursor: string | undefined;
  do {
    const page = await searchAudit(ctx, { ...input, cursor, limit: pageSize });
    yield* page.entries;
    cursor = page.next ?? undefined;
  } while (cursor);
}

function toRecord(row: AuditSearchRow): AuditRecord {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: row.actor,
    operatorEmail: row.operator_email,
    action: row.action,
    tenantId: row.tenant_id,
    tenantSlug: row.tenant_slug,
    address: row.address,
    fields: row.fields,
  };
}
