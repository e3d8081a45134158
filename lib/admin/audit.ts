import { createLogger } from "@runifold/sdk";
import { isUuid } from "@runifold/store";
import { insertAuditEvent } from "../../db/queries/audit-events";
import { type AdminActor, type AdminContext, actorLabel } from "./actor";

/**
 * The audit trail: every admin operation, sign-in and refused credential is STORED in
 * `audit_events` (ASVS 7.1, 7.2: it does not depend on RUNIFOLD_LOG_LEVEL; `silent` silences only
 * the copy on stderr), naming the actor and the objects by id, never a secret (tokens and passwords
 * are not passed in here). Admins read it with `runifold audit list` and on the console's Audit page.
 */
const log = createLogger("audit", (process.env.RUNIFOLD_LOG_LEVEL as "info" | undefined) ?? "info");
// When the store cannot take an event, the event still goes to stderr, whatever the log level.
const fallback = createLogger("audit", "info");

export type AuditFields = Record<string, string | number | boolean | null | undefined>;

export type AuditContext = Pick<AdminContext, "sql"> & { actor: AdminActor | { kind: "anonymous" } };

function labelOf(actor: AuditContext["actor"]): string {
  return actor.kind === "anonymous" ? "anonymous" : actorLabel(actor);
}

/**
 * Stores one event (and logs it). `fields.tenantId`, when a UUID, also fills the tenant column so
 * a tenant's events can be listed; `address` is the client address of a sign-in.
 */
export async function audit(ctx: AuditContext, action: string, given: AuditFields = {}, address?: string | null): Promise<void> {
  const actor = labelOf(ctx.actor);
  const operatorId = ctx.actor.kind === "operator" ? ctx.actor.id : null;
  // Which of the operator's API tokens acted (never the token itself), so one token's actions can be found.
  const fields = ctx.actor.kind === "operator" && ctx.actor.tokenId ? { ...given, viaToken: ctx.actor.tokenId } : given;
  const entry = { actor, ...(operatorId ? { operatorId } : {}), ...fields, ...(address ? { address } : {}) };
  log.info(action, entry);
  const stored = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  try {
    await insertAuditEvent(ctx.sql, {
      actor,
      operatorId,
      action,
      tenantId: isUuid(fields.tenantId) ? fields.tenantId : null,
      address: address ?? null,
      fields: stored,
    });
  } catch (error) {
    fallback.error("audit event not stored", { action, ...entry, error: (error as Error).message });
  }
}
