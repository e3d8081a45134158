"use server";

import { coerceError, createLogger } from "@runifold/sdk";
import { redirect } from "next/navigation";
import { AuthenticationStepRequired, PasswordChangeRequired } from "@/lib/auth";
import { webContext } from "@/lib/auth/web";
import { isAppError } from "@/lib/errors";
import { webOAuthConfig } from "@/lib/server/oauth-config";
import { consentDecisionAction } from "@/lib/ui/actions/consent-actions";

/** What the consent form shows after a refused answer (a successful one leaves the page). */
export type ConsentState = { error: string } | null;

const log = createLogger("oauth-consent");

/**
 * Approve or Deny on the consent page. The action returns where the browser goes (the client's
 * redirect URI with a code or an error); redirect() runs outside the try so Next's redirect signal
 * is not mistaken for a failure.
 */
export async function decideConsent(_previous: ConsentState, form: FormData): Promise<ConsentState> {
  const config = webOAuthConfig();
  if (!config) return { error: "OAuth is off on this server (RUNIFOLD_PUBLIC_URL is not set)." };
  const request = String(form.get("request") ?? "");
  let target: string;
  try {
    target = await consentDecisionAction(config)(webContext(), {
      request,
      decision: form.get("decision"),
      tenantId: String(form.get("tenantId") ?? ""),
      scopes: form.getAll("scope").map(String),
    });
  } catch (error) {
    if (error instanceof PasswordChangeRequired) redirect("/account/password");
    // Approving needs a recent authentication (ASVS 3.7.1): confirm it is you, then back to this request.
    if (error instanceof AuthenticationStepRequired && error.step === "recent_auth")
      redirect(`/account/confirm?callbackUrl=${encodeURIComponent(`/oauth/authorize?${request}`)}`);
    if (error instanceof AuthenticationStepRequired && error.step === "mfa_enrolment") redirect("/account/mfa");
    if (isAppError(error)) {
      if (error.code === "unauthenticated") redirect(`/login?callbackUrl=${encodeURIComponent(`/oauth/authorize?${request}`)}`);
      return { error: error.message };
    }
    log.error("consent decision failed", { error: coerceError(error).message });
    return { error: "Something went wrong; the server log has the details." };
  }
  redirect(target);
}
