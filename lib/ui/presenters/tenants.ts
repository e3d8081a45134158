import "server-only";
import type { SqlHandle } from "@runifold/store";
import { listApiKeys } from "../../../db/queries/api-keys";
import { listOperators, listTenantMembers } from "../../../db/queries/operators";
import { findScopedTenantBySlug, listTenants, type TenantRow } from "../../../db/queries/tenants";
import type { Operator } from "../../auth";

const iso = (value: Date | null) => (value ? new Date(value).toISOString() : null);

export async function listVisibleTenants(sql: SqlHandle, operator: Operator): Promise<TenantRow[]> {
  const all = await listTenants(sql);
  return operator.tenantIds === null ? all : all.filter((tenant) => operator.tenantIds?.includes(tenant.id));
}

export type TenantListItem = { id: string; slug: string; name: string; disabled: boolean; createdAt: string };

export async function presentTenantList(sql: SqlHandle, operator: Operator): Promise<TenantListItem[]> {
  return (await listVisibleTenants(sql, operator)).map((t) => ({
    id: t.id,
    slug: t.slug,
    name: t.name,
    disabled: t.disabled_at !== null,
    createdAt: iso(t.created_at) as string,
  }));
}

export type TenantDetail = {
  tenant: TenantListItem;
  keys: {
    id: string;
    name: string;
    scopes: string[];
    createdAt: string;
    lastUsedAt: string | null;
    revokedAt: string | null;
    expiresAt: string | null;
  }[];
  members: { id: string; email: string; role: string; disabled: boolean }[];
  /** Admin only: every operator (to add members) with their tenants. */
  operators: { id: string; email: string; role: string; disabled: boolean; tenants: string[] }[] | null;
};

/** A tenant page's data; undefined when the tenant is missing or outside the operator's tenants (same 404). */
export async function presentTenantDetail(sql: SqlHandle, operator: Operator, slug: string): Promise<TenantDetail | undefined> {
  const tenant = await findScopedTenantBySlug(sql, { slug, scope: operator.tenantIds });
  if (!tenant) return undefined;
  const isAdmin = operator.tenantIds === null;
  const [keys, members, operators] = await Promise.all([
    listApiKeys(sql, tenant.id),
    listTenantMembers(sql, tenant.id),
    isAdmin ? listOperators(sql) : Promise.resolve(null),
  ]);
  return {
    tenant: {
      id: tenant.id,
      slug: tenant.slug,
      name: tenant.name,
      disabled: tenant.disabled_at !== null,
      createdAt: iso(tenant.created_at) as string,
    },
    keys: keys.map((k) => ({
      id: k.id,
      name: k.name,
      scopes: k.scopes,
      createdAt: iso(k.created_at) as string,
      lastUsedAt: iso(k.last_used_at),
      revokedAt: iso(k.revoked_at),
      expiresAt: iso(k.expires_at),
    })),
    members: members.map((m) => ({ id: m.id, email: m.email, role: m.role, disabled: m.disabled_at !== null })),
    operators:
      operators?.map((o) => ({
        id: o.id,
        email: o.email,
        role: o.role,
        disabled: o.disabled_at !== null,
        tenants: o.tenant_slugs,
      })) ?? null,
  };
}

export type OperatorItem = {
  id: string;
  email: string;
  role: string;
  disabled: boolean;
  tenants: string[];
  /** Two-factor authentication is on (an admin resets it with `runifold operators reset-mfa`). */
  mfa: boolean;
};

/** Every operator with its tenants (admin pages only; callers pass an admin). */
export async function presentOperatorList(sql: SqlHandle, operator: Operator): Promise<OperatorItem[]> {
  if (operator.tenantIds !== null) return [];
  return (await listOperators(sql)).map((o) => ({
    id: o.id,
    email: o.email,
    role: o.role,
    disabled: o.disabled_at !== null,
    tenants: o.tenant_slugs,
    mfa: o.mfa_enabled_at !== null,
  }));
}
