"use server";

import { redirect } from "next/navigation";
import { callbackPathFromQuery } from "@/app/login/safe-callback";
import { type CodeOutcome, reauthenticate, requireOperator } from "@/lib/auth";
import { webContext } from "@/lib/auth/web";
import { isAppError } from "@/lib/errors";
import { mfaRequest } from "@/lib/server/mfa-request";

/**
 * Re-authentication (ASVS 3.7.1): the password, or a code from the authenticator app, entered again
 * makes this session recent for 10 minutes (minting keys, creating admins, binding routes,
 * approving OAuth clients). Posts without scripts; always ends in a redirect: on to `callbackUrl`,
 * or back here with `?error=` (the secret never travels in a URL). Throttled and audited like sign-in.
 */
export async function confirmIdentity(form: FormData): Promise<void> {
  const callbackPath = callbackPathFromQuery(String(form.get("callbackUrl") ?? ""));
  const secret = String(form.get("secret") ?? "").slice(0, 200);
  const ctx = webContext();
  let outcome: CodeOutcome;
  try {
    const operator = await requireOperator(ctx, { mutating: true });
    const request = await mfaRequest();
    outcome = await reauthenticate(ctx.sql, {
      operatorId: operator.id,
      sessionId: operator.sessionId ?? "",
      secret,
      clientAddress: request.clientAddress,
      keyMaterial: request.keyMaterial,
    });
  } catch (error) {
    if (isAppError(error) && error.code === "unauthenticated") redirect("/login");
    throw error;
  }
  if (outcome.ok) redirect(callbackPath);
  redirect(`/account/confirm?${new URLSearchParams({ error: outcome.reason, callbackUrl: callbackPath })}`);
}
