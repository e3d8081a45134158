import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isPublicAddress } from "./address-ranges";

/** Resolves a host name to every address it has (node:dns lookup with `all: true` by default). */
export type HostLookup = (hostname: string) => Promise<{ address: string }[]>;

export type WebhookUrlPolicy = {
  /**
   * RUNIFOLD_WEBHOOK_ALLOW_PRIVATE: http and private, loopback and link-local addresses are
   * allowed (tests, receivers on a private network). Off by default: https to public addresses only.
   */
  allowPrivate: boolean;
  lookup?: HostLookup;
};

/** A refusal; `transient` when DNS failed (worth retrying), not when the rule refused the URL. */
export type CheckedWebhookUrl = { ok: true; url: URL; addresses: string[] } | { ok: false; reason: string; transient?: true };

export const MAX_WEBHOOK_URL_LENGTH = 2_048;

const systemLookup: HostLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * The SSRF rule for a webhook URL, applied when a subscription is saved AND before every delivery
 * attempt (DNS may change in between): https only, no credentials in the URL, and every address the
 * host resolves to must be public — one private answer refuses the URL, so a name that resolves to
 * both cannot be used to reach the inside. The delivery then connects to one of these checked
 * addresses (post.ts), so a second DNS answer cannot redirect it.
 */
export async function checkWebhookUrl(raw: string, policy: WebhookUrlPolicy): Promise<CheckedWebhookUrl> {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH)
    return { ok: false, reason: `the URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "not an absolute URL" };
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && policy.allowPrivate)) {
    return { ok: false, reason: "the URL must use https" };
  }
  // Credentials in a URL end up in logs and the console; receivers authenticate the signature instead.
  if (url.username || url.password) return { ok: false, reason: "the URL must not contain a user name or password" };
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await (policy.lookup ?? systemLookup)(host)).map((entry) => entry.address);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    return { ok: false, reason: `the host ${host} does not resolve (${code})`, transient: true };
  }
  if (addresses.length === 0) return { ok: false, reason: `the host ${host} has no address` };
  if (!policy.allowPrivate) {
    const refused = addresses.find((address) => !isPublicAddress(address));
    if (refused !== undefined) {
      return {
        ok: false,
        reason: `the host resolves to a private, loopback or reserved address (${refused}); set RUNIFOLD_WEBHOOK_ALLOW_PRIVATE=true to allow it`,
      };
    }
  }
  return { ok: true, url, addresses };
}
