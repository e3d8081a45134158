import "server-only";
import { z } from "zod";
import { beginMfaEnrolment, confirmMfaEnrolment, disableOwnMfa } from "../../auth";
import type { MfaRequest } from "../../server/mfa-request";
import { operatorAction } from "./operator-action";

// The operator's own second factor on Account → Two-factor authentication (ASVS 2.8). lib/auth
// has the rules; these bind who may call them. Enrolment is reachable while an admin is required
// to enrol (everything else then sends the admin here).

/** A new secret, waiting for its first code (the page then shows it as text and an otpauth:// URI). */
export function beginMfaAction(request: MfaRequest) {
  return operatorAction(
    z.object({}),
    async (ctx) => {
      await beginMfaEnrolment(ctx.sql, {
        operatorId: ctx.operator.id,
        accountName: ctx.operator.email,
        keyMaterial: request.keyMaterial,
      });
      return null;
    },
    { duringMfaEnrolment: true },
  );
}

export const ZConfirmMfa = z.object({ code: z.string().max(100) });

/** The first code from the device: MFA on, and the recovery codes, shown this once. */
export function confirmMfaAction(request: MfaRequest) {
  return operatorAction(
    ZConfirmMfa,
    (ctx, input) =>
      confirmMfaEnrolment(ctx.sql, {
        operatorId: ctx.operator.id,
        sessionId: ctx.operator.sessionId ?? null,
        code: input.code,
        clientAddress: request.clientAddress,
        keyMaterial: request.keyMaterial,
      }),
    { duringMfaEnrolment: true },
  );
}

/** Turning the factor off weakens the account: it needs a recent authentication (ASVS 3.7.1). */
export function disableMfaAction(request: MfaRequest) {
  return operatorAction(
    z.object({}),
    async (ctx) => {
      await disableOwnMfa(ctx.sql, { operatorId: ctx.operator.id, clientAddress: request.clientAddress });
      return null;
    },
    { recentAuth: true },
  );
}
