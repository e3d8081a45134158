import { BlockList, isIP } from "node:net";

/**
 * Addresses a server-side fetch of a user-supplied URL must never reach (SSRF): loopback, private,
 * link-local, unique-local, CGNAT, documentation, benchmarking, multicast, reserved, and the IPv6
 * forms that embed an IPv4 address that can point anywhere (NAT64, 6to4, Teredo) — the IANA
 * special-purpose registries. IPv4-mapped IPv6 (::ffff:a.b.c.d) needs no rule: BlockList checks it
 * against the IPv4 rules. The one table for webhooks (here, in the worker) and the OAuth server's
 * Client ID Metadata Document fetch (lib/oauth imports it through @runifold/sdk; CIMD draft §6).
 */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b::", 96],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001::", 23],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, "ipv6");
}

/** A globally routable unicast address (false for anything malformed). */
export function isPublicAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 0) return false;
  return !NOT_PUBLIC.check(address, version === 4 ? "ipv4" : "ipv6");
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

export function isLoopbackAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 0) return false;
  return LOOPBACK.check(address, version === 4 ? "ipv4" : "ipv6");
}
