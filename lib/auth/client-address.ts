import { BlockList, isIP } from "node:net";
import { normalizeAddress, peerOf } from "./peer-hook";

/**
 * The client address for throttling and the audit trail (ASVS 2.2.1): the socket peer, unless that
 * peer is a proxy listed in RUNIFOLD_TRUSTED_PROXIES — then X-Forwarded-For is walked from the right
 * past trusted hops, and the first untrusted one is the client. A client-chosen X-Forwarded-For is
 * therefore never believed when no trusted proxy sent it.
 */
export function resolveClientAddress(params: {
  peer: string | undefined;
  forwardedFor: string | null | undefined;
  trustedProxies: BlockList;
}): string | null {
  if (!params.peer) return null;
  let client = normalizeAddress(params.peer);
  if (!isTrusted(params.trustedProxies, client)) return client.slice(0, 64);
  const hops = (params.forwardedFor ?? "")
    .split(",")
    .map((hop) => normalizeAddress(hop.trim()))
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i] as string;
    if (!isIP(hop)) break; // garbage from a hop we cannot vouch for: stop at the last good one
    client = hop;
    if (!isTrusted(params.trustedProxies, hop)) break;
  }
  return client.slice(0, 64);
}

function isTrusted(list: BlockList, address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return list.check(address, family === 6 ? "ipv6" : "ipv4");
}

/** `10.0.0.5, 10.1.0.0/16, ::1` → a BlockList; throws on an entry that is neither an address nor a CIDR. */
export function parseTrustedProxies(value: string): BlockList {
  const list = new BlockList();
  for (const entry of value
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)) {
    const [address, prefix] = entry.split("/") as [string, string | undefined];
    const family = isIP(address);
    if (family === 0) throw new Error(`not an IP address or CIDR: ${entry}`);
    const type = family === 6 ? "ipv6" : "ipv4";
    if (prefix === undefined) list.addAddress(address, type);
    else {
      const bits = Number(prefix);
      if (!Number.isInteger(bits) || bits < 0 || bits > (family === 6 ? 128 : 32)) throw new Error(`bad prefix length: ${entry}`);
      list.addSubnet(address, bits, type);
    }
  }
  return list;
}

/** The client address of a Next request (next-auth's `req.headers` or a Request's Headers). */
export function clientAddressFrom(
  headers: Record<string, string | string[] | undefined> | Headers | undefined,
  trustedProxies: BlockList,
): string | null {
  if (!headers) return null;
  const raw = headers instanceof Headers ? headers.get("x-forwarded-for") : headers["x-forwarded-for"];
  const forwardedFor = Array.isArray(raw) ? raw.join(",") : raw;
  return resolveClientAddress({ peer: peerOf(headers)?.peer, forwardedFor, trustedProxies });
}

/**
 * The key a per-address limit counts an address under (sign-in throttling, client registration):
 * an IPv4 address as it is; an IPv6 address by its /64, since one subscriber is usually given a
 * whole /64 and would otherwise hold 2^64 "addresses" (review F15). The audit keeps the full address.
 */
export function rateKeyOfAddress(address: string): string {
  const bare = address.split("%")[0] as string; // a zone id (fe80::1%eth0) names no other host
  if (isIP(bare) !== 6) return address;
  const [head = "", tail] = bare.toLowerCase().split("::");
  const front = head ? head.split(":") : [];
  const back = tail ? tail.split(":") : [];
  const groups = tail === undefined ? front : [...front, ...Array(8 - front.length - back.length).fill("0"), ...back];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(":")}::/64`;
}
