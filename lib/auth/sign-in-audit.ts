import { createLogger } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import { insertAuditEvent } from "../../db/queries/audit-events";

/**
 * Sign-in events for the stored audit trail (audit_events, the table lib/admin/audit.ts writes for
 * admin actions, in the same shape: actor `operator:<id>` or `anonymous`). Written here rather than
 * through lib/admin because lib/admin depends on lib/auth (hashing, keys), not the other way round.
 * Stored whatever RUNIFOLD_LOG_LEVEL says; the stderr copy follows it.
 */
const log = createLogger("audit", (process.env.RUNIFOLD_LOG_LEVEL as "info" | undefined) ?? "info");
const fallback = createLogger("audit", "info");

export type SignInEvent = {
  action:
    | "auth.login.success"
    | "auth.login.failure"
    | "auth.login.throttled"
    | "auth.password.change"
    | "auth.logout"
    | "auth.mfa.enrolled"
    | "auth.mfa.disabled"
    | "auth.mfa.success"
    | "auth.mfa.failure"
    | "auth.mfa.throttled"
    | "auth.mfa.recovery_code_used"
    | "auth.reauth.success"
    | "auth.reauth.failure"
    | "operator.sso_sign_in"
    | "operator.jit_created"
    | "operator.sso_refused";
  operatorId?: string | null;
  address: string | null;
  /** The tenant the event concerns (a just-in-time creation's tenant), for the tenant's own trail. */
  tenantId?: string | null;
  fields?: Record<string, string | number | boolean | null>;
};

/** A refused sign-in was done by nobody: the operator it names (if any) is a field, not the actor. */
const REFUSALS = new Set<SignInEvent["action"]>([
  "auth.login.failure",
  "operator.sso_refused",
  "auth.mfa.failure",
  "auth.mfa.throttled",
  "auth.reauth.failure",
]);

export async function recordSignInEvent(sql: SqlHandle, event: SignInEvent): Promise<void> {
  const actor = event.operatorId && !REFUSALS.has(event.action) ? `operator:${event.operatorId}` : "anonymous";
  const fields = {
    ...(event.fields ?? {}),
    ...(event.operatorId && actor === "anonymous" ? { operatorId: event.operatorId } : {}),
  };
  log.info(event.action, { actor, ...fields, ...(event.address ? { address: event.address } : {}) });
  try {
    await insertAuditEvent(sql, {
      actor,
      operatorId: actor === "anonymous" ? null : (event.operatorId ?? null),
      action: event.action,
      tenantId: event.tenantId ?? null,
      address: event.address,
      fields,
    });
  } catch (error) {
    fallback.error("audit event not stored", { action: event.action, actor, error: (error as Error).message });
  }
}
