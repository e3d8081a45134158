import "server-only";
import type { SqlHandle } from "@runifold/store";
import { listKeysCreatedBy } from "../../../db/queries/api-keys";
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

/** An active API key the signed-in person minted (what acts in their name besides their clients). */
export type MintedKeyItem = {
  id: string;
  name: string;
  tenantId: string;
  tenantSlug: string;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
};

export type ConnectionsView = {
  /** The signed-in person's own connected clients, every tenant. */
  mine: ConnectionItem[];
  /** The active API keys the signed-in person minted, every tenant (review F7: one list to review). */
  keys: MintedKeyItem[];
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
  const keys = (await listKeysCreatedBy(sql, operator.id)).map((key) => ({
    id: key.id,
    name: key.name,
    tenantId: key.tenant_id,
    tenantSlug: key.tenant_slug,
    scopes: key.scopes,
    createdAt: new Date(key.created_at).toISOString(),
    lastUsedAt: key.last_used_at ? new Date(key.last_used_at).toISOString() : null,
  }));
  if (operator.role !== "admin") return { mine, keys, tenantView: null };
  const tenants = await listVisibleTenants(sql, operator);
  const selected = tenantSlug && tenantSlug !== ALL_TENANTS ? tenantSlug : ALL_TENANTS;
  const shown = selected === ALL_TENANTS ? tenants : tenants.filter((tenant) => tenant.slug === selected);
  const grants = (await Promise.all(shown.map((tenant) => listGrants(sql, { tenantId: tenant.id })))).flat();
  return {
    mine,
    keys,
    tenantView: {
      tenants: tenants.map((tenant) => ({ id: tenant.id, slug: tenant.slug })),
      selected,
      grants: grants.map(toItem).sort(newestFirst),
    },
  };
}
