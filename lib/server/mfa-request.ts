import "server-only";
import { headers } from "next/headers";
import { clientAddressFrom, mfaKeyMaterial, parseTrustedProxies } from "../auth";
import { readEnv } from "../env";

/** What the MFA and re-authentication actions need from the web process and its request. */
export type MfaRequest = { keyMaterial: string | undefined; clientAddress: string | null };

/**
 * The key TOTP secrets are sealed with (RUNIFOLD_MFA_KEY, else NEXTAUTH_SECRET) and the client
 * address of the current request (for the throttle and the audit trail, as at sign-in).
 */
export async function mfaRequest(): Promise<MfaRequest> {
  const env = readEnv();
  let clientAddress: string | null = null;
  try {
    clientAddress = clientAddressFrom(new Headers(await headers()), parseTrustedProxies(env.RUNIFOLD_TRUSTED_PROXIES));
  } catch {
    clientAddress = null;
  }
  return { keyMaterial: mfaKeyMaterial(env), clientAddress };
}
