import { isLoopbackHostname } from "./config";

/** Schemes that must never receive an authorization code (script, local files, other protocols). */
const FORBIDDEN_SCHEMES = new Set([
  "javascript:",
  "data:",
  "file:",
  "vbscript:",
  "blob:",
  "about:",
  "filesystem:",
  "view-source:",
  "ftp:",
  "ws:",
  "wss:",
  "mailto:",
  "tel:",
  "sms:",
]);

export const MAX_REDIRECT_URI_LENGTH = 2_048;

/**
 * Why a redirect URI cannot be registered, or undefined when it can: https anywhere; http only on
 * a loopback host (RFC 8252 §7.3, and the MCP spec: "All redirect URIs MUST be either localhost or
 * use HTTPS"); a private-use scheme for native apps (RFC 8252 §7.1, e.g. `cursor://…`), except
 * schemes that run script or reach other protocols. Never a fragment (RFC 6749 §3.1.2) or userinfo.
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
  if (url.protocol === "http:") {
    return isLoopbackHostname(url.hostname)
      ? undefined
      : "http redirect URIs are allowed only on loopback hosts (127.0.0.1, [::1], localhost); use https";
  }
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `the ${url.protocol} scheme is not allowed for redirect URIs`;
  return undefined;
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

/** What the consent page shows as "where you will be sent": the host, or the scheme of a native-app URI. */
export function redirectHostOf(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.host || url.protocol;
}
