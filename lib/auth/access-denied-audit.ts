import { createLogger } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import { insertAuditEvent } from "../../db/queries/audit-events";
import { isAppError } from "../errors";
import type { OperatorContext } from "./operator-context";
import { AuthenticationStepRequired, CROSS_SITE, PasswordChangeRequired } from "./require-operator";

/**
 * Console access-control failures for the stored audit trail (ASVS 7.2.2, review F10): a server
 * action, page or /api/ui lookup that refused a signed-in operator ("not found" for another
 * tenant's object, "forbidden" for a missing role) stores `access.denied`. The refusal the operator
 * sees is unchanged. Stored with no tenant, so only admins read it: under the operator's tenant it
 * would let its members tell another tenant's id from an unknown one (as review F8 found for task
 * lookups). At most one event a second per operator per process, so refusals cannot flood the
 * trail. Never throws.
 */
const log = createLogger("audit", (process.env.RUNIFOLD_LOG_LEVEL as "info" | undefined) ?? "info");
const fallback = createLogger("audit", "info");

const MIN_INTERVAL_MS = 1_000;
const MAX_TRACKED = 10_000;
const lastStored = new Map<string, number>();

/** The ids an input names, kept in the event (never free text the operator typed). */
const ID_FIELDS = ["tenantId", "taskId", "keyId", "operatorId", "grantId", "subscriptionId", "toolName", "slug"] as const;

export type DeniedAccess = {
  /** What was refused: `action:<name>`, `page:<path>`, `GET /api/ui/…`. */
  target: string;
  reason: "not_found" | "forbidden";
  /** The request's input; only the ids in ID_FIELDS are kept. */
  input?: unknown;
};

export async function recordAccessDenied(sql: SqlHandle, operatorId: string, denied: DeniedAccess): Promise<void> {
  const now = Date.now();
  if (now - (lastStored.get(operatorId) ?? 0) < MIN_INTERVAL_MS) return;
  if (lastStored.size >= MAX_TRACKED) lastStored.clear();
  lastStored.set(operatorId, now);
  const fields: Record<string, string> = { reason: denied.reason, target: denied.target.slice(0, 200) };
  const input = typeof denied.input === "object" && denied.input !== null ? (denied.input as Record<string, unknown>) : {};
  for (const name of ID_FIELDS) {
    const value = input[name];
    if (typeof value === "string" && value.length > 0) fields[name] = value.slice(0, 200);
  }
  const actor = `operator:${operatorId}`;
  log.info("access.denied", { actor, ...fields });
  try {
    await insertAuditEvent(sql, { actor, operatorId, action: "access.denied", tenantId: null, address: null, fields });
  } catch (error) {
    fallback.error("audit event not stored", { action: "access.denied", actor, error: (error as Error).message });
  }
}

/** Whether an error is a refusal worth recording: "not found" or "forbidden", not a forced password change, a due authentication step or a cross-site request. */
export function deniedReason(error: unknown): DeniedAccess["reason"] | undefined {
  if (!isAppError(error) || error instanceof PasswordChangeRequired || error instanceof AuthenticationStepRequired)
    return undefined;
  if (error.code === "not_found") return "not_found";
  if (error.code === "forbidden" && error.message !== CROSS_SITE) return "forbidden";
  return undefined;
}

/** Records `error` as a denial of `target` when it is one and the request has a signed-in operator. */
export async function noteIfDenied(ctx: OperatorContext, error: unknown, target: string, input?: unknown): Promise<void> {
  const reason = deniedReason(error);
  if (!reason) return;
  const operatorId = await ctx.sessionOperatorId().catch(() => null);
  if (operatorId) await recordAccessDenied(ctx.sql, operatorId, { target, reason, input });
}
