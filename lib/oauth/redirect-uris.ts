import { isLoopbackHostname } from "./config";

export const MAX_REDIRECT_URI_LENGTH = 2_048;

/**
 * Why a redirect URI cannot be registered, or undefined when it can: https with a host, or http on
 * a loopback host (RFC 8252 §7.3). The MCP authorization spec: "All redirect URIs MUST be either
 * localhost or use HTTPS", so no private-use scheme (`cursor://…`) either: such a scheme can be
 * claimed by any app on the device. Never a fragment (RFC 6749 §3.1.2) or user information.
 */
export function redirectUriProblem(value: string): string | undefined {
  if (value.length > MAX_REDIRECT_URI_LENGTH) return "redirect URI is too long";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "redirect URI must be an absolute URI";
  }
  if (url.hash !== "" || value.includes("#")) return "redirect URI must not contain a fragment";
  if (url.username !== "" || url.password !== "") return "redirect URI must not contain user information";
  if (url.protocol === "https:") return url.hostname ? undefined : "https redirect URI needs a host";
  if (url.protocol === "http:" && isLoopbackHostname(url.hostname)) return undefined;
  if (url.protocol === "http:")
    return "http redirect URIs are allowed only on loopback hosts (127.0.0.1, [::1], localhost); use https";
  return "redirect URI must use https or http on a loopback host (127.0.0.1, [::1], localhost)";
}

/**
 * Whether `requested` is one of the registered redirect URIs: exact string comparison, except that
 * for an http loopback URI the port may differ (RFC 8252 §7.3: native apps get an ephemeral port
 * at run time), with scheme, host, path and query still identical.
 */
export function matchRegisteredRedirectUri(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  const asked = loopbackParts(requested);
  if (!asked) return false;
  return registered.some((candidate) => {
    const known = loopbackParts(candidate);
    return known !== undefined && known.hostname === asked.hostname && known.rest === asked.rest;
  });
}

function loopbackParts(value: string): { hostname: string; rest: string } | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" || !isLoopbackHostname(url.hostname) || url.username || url.password || url.hash) return undefined;
  return { hostname: url.hostname.toLowerCase(), rest: `${url.pathname}${url.search}` };
}

/** What the consent page shows as "where you will be sent": the host (with its port). */
export function redirectHostOf(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.host || url.protocol;
}
