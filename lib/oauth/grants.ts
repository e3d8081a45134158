import type { SqlHandle } from "@runifold/store";
import { listActiveGrants, revokeGrantOfOwner } from "../../db/queries/oauth-grants";
import { isScope, type Scope } from "../auth";
import { auditOAuth } from "./audit-oauth";

/** One connected client: what a person authorized, where, and when it was last used. */
export type GrantSummary = {
  id: string;
  clientId: string;
  clientName: string;
  clientUri: string | null;
  /** `cimd`: the client id is its metadata document's URL (worth showing); `dcr`: registered here. */
  clientKind: "dcr" | "cimd";
  tenantId: string;
  tenantSlug: string;
  tenantName: string;
  operatorId: string;
  operatorEmail: string;
  operatorName: string;
  scopes: Scope[];
  createdAt: Date;
  lastUsedAt: Date | null;
};

/**
 * Active grants of one operator (their connected clients, every tenant) or of one tenant (an
 * admin's view, every person). Callers authorize first: the operator is the signed-in one, the
 * tenant one they may administer.
 */
export async function listGrants(sql: SqlHandle, owner: { operatorId: string } | { tenantId: string }): Promise<GrantSummary[]> {
  const rows = await listActiveGrants(sql, owner);
  return rows.map((row) => ({
    id: row.id,
    clientId: row.client_id,
    clientName: row.client_name,
    clientUri: row.client_uri,
    clientKind: row.client_kind,
    tenantId: row.tenant_id,
    tenantSlug: row.tenant_slug,
    tenantName: row.tenant_name,
    operatorId: row.operator_id,
    operatorEmail: row.operator_email,
    operatorName: row.operator_name,
    scopes: row.scopes.filter(isScope),
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  }));
}

/**
 * Revokes a grant if it belongs to `operatorId` (their own) or to `tenantId` (an admin's view);
 * false for another owner's grant, exactly as for an unknown or already revoked one. Every token of
 * the grant stops working on its next request. `actorOperatorId` is who did it (audit trail;
 * default: `operatorId`).
 */
export async function revokeGrant(
  sql: SqlHandle,
  params: { grantId: string; operatorId?: string; tenantId?: string; actorOperatorId?: string },
): Promise<boolean> {
  const revoked = await revokeGrantOfOwner(sql, params);
  if (!revoked) return false;
  await auditOAuth(
    sql,
    "oauth.grant_revoked",
    { grantId: revoked.id, clientId: revoked.client_id, tenantId: revoked.tenant_id, via: "console" },
    params.actorOperatorId ?? params.operatorId ?? null,
  );
  return true;
}
