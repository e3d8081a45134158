import "server-only";
import type { SqlHandle } from "@runifold/store";
import { type AuditFilters, type AuditRecord, searchAudit } from "../../admin";
import type { Operator } from "../../auth";
import { AppError } from "../../errors";
import { listVisibleTenants } from "./tenants";

export const AUDIT_PAGE_SIZE = 50;

/** The filter form's values as typed (strings), kept to refill the form and build links. */
export type AuditFilterValues = { actor: string; action: string; tenant: string; from: string; to: string };

export type AuditView = {
  entries: AuditRecord[];
  /** Cursor of the next (older) page. */
  next: string | null;
  values: AuditFilterValues;
  tenants: { id: string; slug: string }[];
  /** The query string of the filters alone (no cursor): the CSV export and "first page" link use it. */
  filterQuery: string;
  /** A filter the server could not read (a bad date or cursor); the page then shows no rows. */
  error: string | null;
};

const FILTER_KEYS = ["actor", "action", "tenant", "from", "to"] as const;

/** A `datetime-local` value (no zone) is read as UTC, as the form's labels say; an ISO instant as itself. */
function parseInstant(value: string, name: string): Date | undefined {
  if (!value) return undefined;
  const text = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(value) ? `${value}Z` : value;
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) throw new AppError("bad_request", `${name}: not a date and time.`);
  return date;
}

export function auditFilterValues(search: URLSearchParams): AuditFilterValues {
  const read = (key: string) => (search.get(key) ?? "").trim().slice(0, 320);
  return { actor: read("actor"), action: read("action"), tenant: read("tenant"), from: read("from"), to: read("to") };
}

/**
 * The URL's filters as lib/admin's search input: actor (label, `prefix:` or email), action (exact or
 * `prefix.`), tenant (ID), from/to (created time, UTC). Empty fields are no filter.
 */
export function auditFiltersFrom(values: AuditFilterValues): AuditFilters {
  return {
    actor: values.actor || undefined,
    action: values.action || undefined,
    tenantId: values.tenant || undefined,
    from: parseInstant(values.from, "from"),
    to: parseInstant(values.to, "to"),
  };
}

export function auditFilterQuery(values: AuditFilterValues): string {
  const query = new URLSearchParams();
  for (const key of FILTER_KEYS) if (values[key]) query.set(key, values[key]);
  return query.toString();
}

/**
 * The Audit page: admins read every event, members the events about their tenants (lib/admin
 * searchAudit applies the operator's tenants as the scope). A foreign tenant in the filter simply
 * matches nothing, like an unknown one.
 */
export async function presentAuditPage(sql: SqlHandle, operator: Operator, search: URLSearchParams): Promise<AuditView> {
  const values = auditFilterValues(search);
  const tenants = (await listVisibleTenants(sql, operator)).map((t) => ({ id: t.id, slug: t.slug }));
  const filterQuery = auditFilterQuery(values);
  try {
    const page = await searchAudit(
      { sql },
      {
        ...auditFiltersFrom(values),
        cursor: search.get("cursor") || undefined,
        limit: AUDIT_PAGE_SIZE,
        scope: operator.tenantIds,
      },
    );
    return { ...page, values, tenants, filterQuery, error: null };
  } catch (error) {
    if (error instanceof AppError && error.code === "bad_request") {
      return { entries: [], next: null, values, tenants, filterQuery, error: error.message };
    }
    throw error;
  }
}
