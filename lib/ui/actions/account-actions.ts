import "server-only";
import { z } from "zod";
import {
  changeOwnPassword,
  resetOperatorPassword,
  setTenantDisabled,
  signOutEverywhere,
  ZChangePassword,
  ZResetPassword,
  ZSetTenantDisabled,
} from "../../admin";
import { operatorAction } from "./operator-action";

// Credential lifecycle in the console (lib/admin has the rules; these only bind who may call them).

/**
 * The operator's own password, re-authenticated; other sessions end, this one stays. Allowed during
 * a forced change. `clientAddress` (the request's, when the web process knows it) goes into the
 * email that tells the operator of the change.
 */
export function changePasswordFrom(clientAddress: string | null) {
  return operatorAction(
    ZChangePassword,
    (ctx, input) => changeOwnPassword({ ...ctx, keepSessionId: ctx.operator.sessionId ?? null, clientAddress }, input),
    { duringPasswordChange: true },
  );
}

export const changePasswordAction = changePasswordFrom(null);

/** Sign out everywhere, this session included (the form then goes to the sign-in page). */
export const signOutEverywhereAction = operatorAction(z.object({}), (ctx) =>
  signOutEverywhere(ctx, { operatorId: ctx.operator.id }),
);

export const resetPasswordAction = operatorAction(ZResetPassword, resetOperatorPassword, { role: "admin" });

export const setTenantDisabledAction = operatorAction(ZSetTenantDisabled, setTenantDisabled, { role: "admin" });
