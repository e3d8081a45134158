import type { NextConfig } from "next";

/**
 * Security headers on every response (ASVS 14.4, L1). `frame-ancestors 'none'` (and X-Frame-Options
 * for old browsers) stops clickjacking; the rest of the CSP limits where a page may load from,
 * submit to and be based at. HSTS only when the public URL is https (it would break plain-http
 * local use). Script sources are not restricted yet: Next's inline bootstrap scripts would need a
 * per-request nonce (docs/security.md, "left").
 */
const publicUrl = process.env.RUNIFOLD_PUBLIC_URL ?? process.env.NEXTAUTH_URL ?? "";

const SECURITY_HEADERS = [
  {
    key: "Content-Security-Policy",
    value: "frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'",
  },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=()" },
  ...(publicUrl.startsWith("https://")
    ? [{ key: "Strict-Transport-Security", value: "max-age=31536000; includeSubDomains" }]
    : []),
];

const nextConfig: NextConfig = {
  // postgres.js and the engine run only on the Node runtime; keep them out of the bundle graph.
  serverExternalPackages: ["postgres"],
  poweredByHeader: false,
  async headers() {
    return [{ source: "/:path*", headers: SECURITY_HEADERS }];
  },
};

export default nextConfig;
