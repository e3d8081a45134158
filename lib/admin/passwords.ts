import { randomBytes } from "node:crypto";
import { z } from "zod";
import { findOperatorById, updateOperatorPassword } from "../../db/queries/operators";
import { authenticateOperator, hashPassword, noticeCredentialChange } from "../auth";
import { AppError } from "../errors";
import type { AdminContext } from "./actor";
import { audit } from "./audit";
import { endOperatorCredentials } from "./containment";
import { parseInput } from "./parse-input";
import { idRule, passwordRule } from "./rules";

// Password change and reset (ASVS 2.1.5, 2.5, 3.7.1). Both end the operator's other sessions and
// the OAuth grants it approved (containment.ts), then email the operator when SMTP is configured
// (ASVS 2.2.3, lib/auth/credential-notice.ts).

export const ZChangePassword = z.object({
  currentPassword: z.string().max(200, "At most 200 characters"),
  newPassword: passwordRule,
});

/**
 * An operator changes its own password, re-authenticating with the current one first (through the
 * sign-in path, so it is throttled and audited like any sign-in). Every other session ends; the one
 * it was made from (`keepSessionId`) stays signed in.
 */
export async function changeOwnPassword(
  ctx: AdminContext & { keepSessionId: string | null; clientAddress?: string | null },
  input: z.input<typeof ZChangePassword>,
): Promise<void> {
  const { currentPassword, newPassword } = parseInput(ZChangePassword, input);
  if (ctx.actor.kind !== "operator") throw new AppError("forbidden", "Only a signed-in operator changes its own password.");
  const operator = await findOperatorById(ctx.sql, ctx.actor.id);
  if (!operator) throw new AppError("unauthenticated");
  const check = await authenticateOperator(ctx.sql, { email: operator.email, password: currentPassword, clientAddress: null });
  if (!check.ok) {
    throw new AppError(
      "bad_request",
      check.reason === "throttled" ? "Too many attempts; try again later." : "currentPassword: that is not your current password",
    );
  }
  if (newPassword === currentPassword)
    throw new AppError("bad_request", "newPassword: choose a password you have not been using");
  await updateOperatorPassword(ctx.sql, {
    operatorId: operator.id,
    passwordHash: await hashPassword(newPassword),
    mustChange: false,
    keepSessionId: ctx.keepSessionId ?? "",
  });
  await audit(ctx, "operator.password.change", { targetOperatorId: operator.id });
  await endOperatorCredentials(ctx, { operatorId: operator.id, reason: "password_change", keys: false });
  await noticeCredentialChange(ctx.sql, {
    operatorId: operator.id,
    change: "password_changed",
    by: "self",
    clientAddress: ctx.clientAddress,
  });
}

export const ZResetPassword = z.object({ operatorId: idRule });

/**
 * An admin resets another operator's password: a random temporary one, returned once (to be
 * passed on out of band), that must be changed at the next sign-in. Every session of that operator
 * and every OAuth grant it approved end at once; the API keys it minted stay (listed on its
 * Connections page for review: machines use them).
 */
export async function resetOperatorPassword(
  ctx: AdminContext,
  input: z.input<typeof ZResetPassword>,
): Promise<{ email: string; temporaryPassword: string }> {
  const { operatorId } = parseInput(ZResetPassword, input);
  if (ctx.actor.kind === "operator" && ctx.actor.id === operatorId)
    throw new AppError("bad_request", "Change your own password on the Account page instead.");
  const operator = await findOperatorById(ctx.sql, operatorId);
  if (!operator) throw new AppError("not_found");
  const temporaryPassword = randomBytes(15).toString("base64url");
  await updateOperatorPassword(ctx.sql, {
    operatorId,
    passwordHash: await hashPassword(temporaryPassword),
    mustChange: true,
    keepSessionId: null,
  });
  await audit(ctx, "operator.password.reset", { targetOperatorId: operatorId });
  await endOperatorCredentials(ctx, { operatorId, reason: "password_reset", keys: false });
  // The temporary password is passed on out of band, never in this notice.
  await noticeCredentialChange(ctx.sql, { operatorId, change: "password_reset", by: "admin" });
  return { email: operator.email, temporaryPassword };
}
