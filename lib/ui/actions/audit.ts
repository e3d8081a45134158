import { createLogger } from "@runifold/sdk";

/**
 * The audit trail of operator actions: one JSON line per action on stderr (the process log), with
 * the operator and object ids and never a secret (tokens and passwords are not passed in here).
 */
const log = createLogger("audit", (process.env.RUNIFOLD_LOG_LEVEL as "info" | undefined) ?? "info");

export function audit(
  action: string,
  fields: { operatorId: string } & Record<string, string | number | boolean | null | undefined>,
): void {
  log.info(action, fields);
}
