import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Who may read a metrics endpoint (the web's GET /api/metrics and a worker's RUNIFOLD_METRICS_PORT
 * apply this one rule): with RUNIFOLD_METRICS_TOKEN set, only a request carrying it as a Bearer
 * credential (compared in constant time), from anywhere; without it, only a scraper on this host —
 * a loopback connection that no forwarding header says was relayed for someone else.
 */
export type ScrapeVerdict = { ok: true } | { ok: false; status: 401 | 403; message: string };

export function authorizeScrape(params: {
  /** RUNIFOLD_METRICS_TOKEN, or undefined/empty when unset. */
  token: string | undefined;
  /** The request's Authorization header. */
  authorization: string | null | undefined;
  /** isLoopbackScrape's answer for this request. */
  fromLoopback: boolean;
}): ScrapeVerdict {
  if (params.token) {
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(params.authorization ?? "")?.[1];
    if (presented !== undefined && sameSecret(presented, params.token)) return { ok: true };
    return { ok: false, status: 401, message: "metrics need the RUNIFOLD_METRICS_TOKEN bearer token" };
  }
  if (params.fromLoopback) return { ok: true };
  return { ok: false, status: 403, message: "metrics are served to loopback only unless RUNIFOLD_METRICS_TOKEN is set" };
}

/** Digests first: timingSafeEqual needs equal lengths, and comparing digests leaks neither content nor length. */
function sameSecret(presented: string, expected: string): boolean {
  const a = createHash("sha256").update(presented).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * True when the socket's peer and local address are loopback and no forwarding header
 * (X-Forwarded-For, X-Real-IP, Forwarded) names any other address. Forwarding headers are only
 * ever used to refuse, never to admit: a reverse proxy on this host relays outside clients over
 * loopback, and the headers it adds are what tells them apart. (One that adds none cannot be told
 * apart: set RUNIFOLD_METRICS_TOKEN behind such a proxy.) A proxy that fills in the header with
 * the loopback peer itself, as Next does when it is absent, still counts as loopback.
 */
export function isLoopbackScrape(params: {
  peer: string | undefined;
  local: string | undefined;
  header: (name: string) => string | null | undefined;
}): boolean {
  if (!params.peer || !isLoopbackAddress(params.peer)) return false;
  if (params.local && !isLoopbackAddress(params.local)) return false;
  const named = [
    ...(params.header("x-forwarded-for") ?? "").split(","),
    params.header("x-real-ip") ?? "",
    ...forwardedFor(params.header("forwarded") ?? ""),
  ]
    .map((hop) => hop.trim())
    .filter(Boolean);
  return named.every(isLoopbackAddress);
}

/** RFC 7239 `for=` values: `for=192.0.2.60`, `for="[2001:db8::1]:4711"`, `for=_hidden` (not loopback, so refused). */
function forwardedFor(header: string): string[] {
  return [...header.matchAll(/for\s*=\s*("[^"]*"|[^;,\s]+)/gi)].map((match) => {
    const value = (match[1] ?? "").replace(/^"|"$/g, "");
    const bracketed = /^\[([^\]]+)\]/.exec(value);
    if (bracketed) return bracketed[1] as string;
    return /^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(value) ? (value.split(":")[0] as string) : value;
  });
}

function isLoopbackAddress(address: string): boolean {
  const a = address.startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
  return a === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}
