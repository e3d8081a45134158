import { createLogger } from "@runifold/sdk";
import { type AdminActor, actorLabel } from "./actor";

/**
 * The audit trail of admin operations: one JSON line per operation on stderr (the process log),
 * naming the actor and the objects by id, never a secret (tokens and passwords are not passed in
 * here). Operator lines keep their `operatorId` field, as the console has always logged it.
 */
const log = createLogger("audit", (process.env.RUNIFOLD_LOG_LEVEL as "info" | undefined) ?? "info");

export type AuditFields = Record<string, string | number | boolean | null | undefined>;

export function audit(actor: AdminActor, action: string, fields: AuditFields = {}): void {
  log.info(action, { actor: actorLabel(actor), ...(actor.kind === "operator" ? { operatorId: actor.id } : {}), ...fields });
}
