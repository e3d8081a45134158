import "server-only";
import type { SqlHandle } from "@runifold/store";
import { countUnusedRecoveryCodes, readMfaSecret } from "../../../db/queries/operator-mfa";
import { type Operator, pendingMfaEnrolment } from "../../auth";

/** What Account → Two-factor authentication shows (never a recovery code: those are shown once, by the action). */
export type MfaStatus =
  | { state: "off" }
  /** Set-up started: the secret (text and otpauth:// URI) waits for the first code. */
  | { state: "pending"; secret: string; uri: string }
  | { state: "on"; since: string; recoveryCodesLeft: number };

export async function mfaStatus(sql: SqlHandle, operator: Operator, keyMaterial: string | undefined): Promise<MfaStatus> {
  const stored = await readMfaSecret(sql, operator.id);
  if (stored?.enabledAt)
    return {
      state: "on",
      since: stored.enabledAt.toISOString(),
      recoveryCodesLeft: await countUnusedRecoveryCodes(sql, operator.id),
    };
  const pending = await pendingMfaEnrolment(sql, { operatorId: operator.id, accountName: operator.email, keyMaterial });
  return pending ? { state: "pending", ...pending } : { state: "off" };
}
