import { createLogger } from "@runifold/sdk";
import { isUuid, type SqlHandle } from "@runifold/store";
import { insertAuditEvent } from "../../db/queries/audit-events";

/**
 * OAuth events for the stored audit trail (audit_events, the shape lib/admin/audit.ts writes:
 * actor `operator:<id>` or `anonymous`). Written directly, like lib/auth's sign-in events, so
 * lib/oauth does not depend on lib/admin. Fields name clients, grants and tenants by id, never a
 * code or token. Stored whatever RUNIFOLD_LOG_LEVEL says; the stderr copy follows it.
 */
const log = createLogger("audit", (process.env.RUNIFOLD_LOG_LEVEL as "info" | undefined) ?? "info");
const fallback = createLogger("audit", "info");

export type OAuthAuditAction =
  | "oauth.client_registered"
  | "oauth.authorized"
  | "oauth.denied"
  | "oauth.token_reuse_detected"
  | "oauth.grant_revoked";

export async function auditOAuth(
  sql: SqlHandle,
  action: OAuthAuditAction,
  fields: Record<string, string | number | boolean | null | undefined>,
  operatorId?: string | null,
  /** The client address of an anonymous request (a registration), so a flood has a source. */
  address?: string | null,
): Promise<void> {
  const actor = operatorId ? `operator:${operatorId}` : "anonymous";
  const stored = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  log.info(action, { actor, ...stored });
  try {
    await insertAuditEvent(sql, {
      actor,
      operatorId: operatorId ?? null,
      action,
      tenantId: isUuid(fields.tenantId) ? fields.tenantId : null,
      address: address ?? null,
      fields: stored,
    });
  } catch (error) {
    fallback.error("audit event not stored", { action, actor, error: (error as Error).message });
  }
}
