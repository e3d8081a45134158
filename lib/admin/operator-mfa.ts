import { z } from "zod";
import { clearMfa } from "../../db/queries/operator-mfa";
import { endAllOperatorSessions, findOperatorById } from "../../db/queries/operators";
import { noticeCredentialChange } from "../auth";
import { AppError } from "../errors";
import type { AdminContext } from "./actor";
import { audit } from "./audit";
import { endOperatorCredentials } from "./containment";
import { parseInput } from "./parse-input";
import { idRule } from "./rules";

export const ZResetOperatorMfa = z.object({ operatorId: idRule });

/**
 * An admin resets an operator's second factor (a lost device with its recovery codes, or a changed
 * RUNIFOLD_MFA_KEY): the secret and every recovery code go, and every session of that operator
 * ends, with the OAuth grants it approved (as for a password reset: the lost device may be in
 * someone else's hands), so the next sign-in is the password alone, followed (for an admin while
 * RUNIFOLD_ADMIN_MFA=required) by a new enrolment. Audited as `auth.mfa.reset`; the operator is
 * emailed when a factor was removed and SMTP is configured (ASVS 2.2.3).
 */
export async function resetOperatorMfa(
  ctx: AdminContext,
  input: z.input<typeof ZResetOperatorMfa>,
): Promise<{ email: string; hadMfa: boolean }> {
  const { operatorId } = parseInput(ZResetOperatorMfa, input);
  const operator = await findOperatorById(ctx.sql, operatorId);
  if (!operator) throw new AppError("not_found");
  const hadMfa = await clearMfa(ctx.sql, operatorId);
  await endAllOperatorSessions(ctx.sql, operatorId);
  await audit(ctx, "auth.mfa.reset", { targetOperatorId: operatorId, hadMfa });
  await endOperatorCredentials(ctx, { operatorId, reason: "mfa_reset", keys: false });
  if (hadMfa) await noticeCredentialChange(ctx.sql, { operatorId, change: "mfa_reset", by: "admin" });
  return { email: operator.email, hadMfa };
}
