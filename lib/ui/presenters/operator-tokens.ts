import "server-only";
import type { SqlHandle } from "@runifold/store";
import { listOperatorApiTokens } from "../../../db/queries/operator-api-tokens";

export type OperatorTokenView = {
  id: string;
  name: string;
  scopes: string[];
  state: "active" | "revoked" | "expired";
  expiresAt: string | null;
  lastUsedAt: string | null;
  createdAt: string;
};

/** The signed-in operator's own API tokens for Account → API tokens (never a digest). */
export async function operatorTokenViews(sql: SqlHandle, operatorId: string): Promise<OperatorTokenView[]> {
  const rows = await listOperatorApiTokens(sql, operatorId);
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    scopes: row.scopes,
    state: row.revoked_at ? "revoked" : row.expires_at && new Date(row.expires_at).getTime() <= Date.now() ? "expired" : "active",
    expiresAt: row.expires_at ? new Date(row.expires_at).toISOString() : null,
    lastUsedAt: row.last_used_at ? new Date(row.last_used_at).toISOString() : null,
    createdAt: new Date(row.created_at).toISOString(),
  }));
}
