import type { SqlHandle } from "@runifold/store";
import type { AuditEventRow } from "./audit-events";

export type AuditSearchRow = AuditEventRow & { operator_email: string | null; tenant_slug: string | null };

export type AuditSearch = {
  /** Tenants the reader may see (a member's); null = every event, including those about no tenant (an admin). */
  scope: string[] | null;
  tenantId?: string;
  /** `operator:<id>`, `cli:me@host`, a prefix ending in `:` (`cli:`), or an operator's email. */
  actor?: string;
  /** An action (`task.rerun`) or a prefix ending in `.` (`auth.`). */
  action?: string;
  /** Inclusive lower and exclusive upper bound on `at`. */
  from?: Date;
  to?: Date;
  /** Keyset: the (at, id) of the last row of the previous page; the next page is strictly older. */
  after?: { at: Date; id: number };
  limit: number;
};

/**
 * The console's audit search, newest first by (at, id), keyset-paginated. Which index serves it:
 *  - a tenant filter, or a member's scope (tenant_id = ANY(...)): audit_events_tenant_at_idx
 *    (tenant_id, at), read backwards from the cursor's `at` per tenant;
 *  - an admin without a tenant filter: audit_events_at_idx (at), read backwards from the cursor.
 * `id` only breaks ties between events of the same millisecond (an incremental sort over a few
 * rows). The keyset is written as `at <= $cursor AND (at < $cursor OR id < $id)` so the range on
 * `at` is an index condition. Each statement is planned with its parameters (unnamed, not prepared),
 * so the `$n IS NULL OR …` branches of absent filters fold away before index selection.
 */
export async function searchAuditEvents(sql: SqlHandle, params: AuditSearch): Promise<AuditSearchRow[]> {
  const [text, values] = auditSearchStatement(params);
  return sql.unsafe<AuditSearchRow[]>(text, values as never[]);
}

/** The statement and its parameters (exported so a test can EXPLAIN exactly what runs). */
export function auditSearchStatement(params: AuditSearch): [string, unknown[]] {
  return [
    `SELECT a.id::float8 AS id, a.at, a.actor, a.operator_id, o.email AS operator_email, a.action,
            a.tenant_id, t.slug AS tenant_slug, a.address, a.fields
     FROM audit_events a
     LEFT JOIN operators o ON o.id = a.operator_id
     LEFT JOIN tenants t ON t.id = a.tenant_id
     WHERE ($1::uuid[] IS NULL OR a.tenant_id = ANY($1::uuid[]))
       AND ($2::uuid IS NULL OR a.tenant_id = $2::uuid)
       AND ($3::text IS NULL OR a.actor = $3 OR (right($3, 1) = ':' AND starts_with(a.actor, $3)) OR lower(o.email) = lower($3))
       AND ($4::text IS NULL OR a.action = $4 OR (right($4, 1) = '.' AND starts_with(a.action, $4)))
       AND ($5::timestamptz IS NULL OR a.at >= $5)
       AND ($6::timestamptz IS NULL OR a.at < $6)
       AND ($7::timestamptz IS NULL OR (a.at <= $7 AND (a.at < $7 OR a.id < $8::bigint)))
     ORDER BY a.at DESC, a.id DESC
     LIMIT $9`,
    [
      params.scope,
      params.tenantId ?? null,
      params.actor ?? null,
      params.action ?? null,
      params.from ?? null,
      params.to ?? null,
      params.after?.at ?? null,
      params.after?.id ?? null,
      params.limit,
    ],
  ];
}
