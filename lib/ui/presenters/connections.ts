import "server-only";
import type { SqlHandle } from "@runifold/store";
import type { Operator, Scope } from "../../auth";
import { type GrantSummary, listGrants } from "../../oauth";
import { listVisibleTenants } from "./tenants";

/** One connected client as the Connections page lists it. */
export type ConnectionItem = {
  id: string;
  clientName: string;
  clientId: string;
  clientKind: "dcr" | "cimd";
  tenantId: string;
  tenantSlug: string;
  operatorEmail: string;
  scopes: Scope[];
  connectedAt: string;
  lastUsedAt: string | null;
};

export type ConnectionsView = {
  /** The signed-in person's own connected clients, every tenant. */
  mine: ConnectionItem[];
  /** Admins: every person's grants in the chosen tenant (or all tenants); null for operators. */
  tenantView: {
    tenants: { id: string; slug: string }[];
    /** A tenant slug, or "all". */
    selected: string;
    grants: ConnectionItem[];
  } | null;
};

export const ALL_TENANTS = "all";

function toItem(grant: GrantSummary): ConnectionItem {
  return {
    id: grant.id,
    clientName: grant.clientName,
    clientId: grant.clientId,
    clientKind: grant.clientKind,
    tenantId: grant.tenantId,
    tenantSlug: grant.tenantSlug,
    operatorEmail: grant.operatorEmail,
    scopes: grant.scopes,
    connectedAt: new Date(grant.createdAt).toISOString(),
    lastUsedAt: grant.lastUsedAt ? new Date(grant.lastUsedAt).toISOString() : null,
  };
}

const newestFirst = (a: ConnectionItem, b: ConnectionItem) => b.connectedAt.localeCompare(a.connectedAt);

/**
 * The Connections page: the operator's own grants, and for an admin the grants of `tenantSlug`
 * (default: every tenant). An unknown slug lists nothing, like a tenant without connections.
 */
export async function presentConnections(sql: SqlHandle, operator: Operator, tenantSlug?: string): Promise<ConnectionsView> {
  const mine = (await listGrants(sql, { operatorId: operator.id })).map(toItem).sort(newestFirst);
  if (operator.role !== "admin") return { mine, tenantView: null };
  const tenants = await listVisibleTenants(sql, operator);
  const selected = tenantSlug && tenantSlug !== ALL_TENANTS ? tenantSlug : ALL_TENANTS;
  const shown = selected === ALL_TENANTS ? tenants : tenants.filter((tenant) => tenant.slug === selected);
  const grants = (await Promise.all(shown.map((tenant) => listGrants(sql, { tenantId: tenant.id })))).flat();
  return {
    mine,
    tenantView: {
      tenants: tenants.map((tenant) => ({ id: tenant.id, slug: tenant.slug })),
      selected,
      grants: grants.map(toItem).sort(newestFirst),
    },
  };
}
