"use server";

import { redirect } from "next/navigation";
import { type CodeOutcome, requireOperator, verifySecondFactor } from "@/lib/auth";
import { webContext } from "@/lib/auth/web";
import { isAppError } from "@/lib/errors";
import { mfaRequest } from "@/lib/server/mfa-request";
import { callbackPathFromQuery } from "../safe-callback";

/**
 * The second step of a password sign-in (ASVS 2.8): the code from the authenticator app or a
 * recovery code, for the session the password opened. It posts without scripts and always ends in
 * a redirect (outside the try, so Next's redirect signal is not taken for a failure): on to where
 * the sign-in was going, through that page's own checks, or back here with `?error=` (the code
 * never travels in a URL). Throttled and audited by lib/auth (verifySecondFactor).
 */
export async function submitSecondFactor(form: FormData): Promise<void> {
  const callbackPath = callbackPathFromQuery(String(form.get("callbackUrl") ?? ""));
  const code = String(form.get("code") ?? "").slice(0, 100);
  const ctx = webContext();
  let outcome: CodeOutcome;
  try {
    const operator = await requireOperator(ctx, { mutating: true, duringSecondFactor: true, duringPasswordChange: true });
    const request = await mfaRequest();
    outcome = await verifySecondFactor(ctx.sql, {
      operatorId: operator.id,
      sessionId: operator.sessionId ?? "",
      code,
      clientAddress: request.clientAddress,
      keyMaterial: request.keyMaterial,
    });
  } catch (error) {
    if (isAppError(error) && error.code === "unauthenticated") redirect("/login");
    throw error;
  }
  if (outcome.ok) redirect(callbackPath);
  redirect(`/login/mfa?${new URLSearchParams({ error: outcome.reason, callbackUrl: callbackPath })}`);
}
