import type { NextConfig } from "next";
import { PHASE_PRODUCTION_SERVER } from "next/constants";

/**
 * Security headers on every response (ASVS 14.4, L1). `frame-ancestors 'none'` (and X-Frame-Options
 * for old browsers) stops clickjacking; the rest of the CSP limits where a page may load from,
 * submit to and be based at. HSTS only when the public URL is https (it would break plain-http
 * local use). Script sources are not restricted yet: Next's inline bootstrap scripts would need a
 * per-request nonce (docs/security.md, "left").
 */
const publicUrl = process.env.RUNIFOLD_PUBLIC_URL ?? process.env.NEXTAUTH_URL ?? "";

const CSP = "frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'";
/**
 * The OAuth consent page's Approve and Deny end in a redirect to the client's registered redirect
 * URI, and browsers apply `form-action` to a form post's redirects too (CSP3 §6.4.2): with
 * `'self'` a no-JavaScript approval would be blocked. Any redirect target there is one the server
 * validated against the client's registration, so that page drops only `form-action`.
 */
const CONSENT_CSP = "frame-ancestors 'none'; base-uri 'self'; object-src 'none'";

const SECURITY_HEADERS = [
  { key: "Content-Security-Policy", value: CSP },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=()" },
  ...(publicUrl.startsWith("https://")
    ? [{ key: "Strict-Transport-Security", value: "max-age=31536000; includeSubDomains" }]
    : []),
];

const nextConfig: NextConfig = {
  // Every build also writes .next/standalone: server.js plus only the node_modules it traced, what the
  // `web` image runs (docs/deploy.md). The rest of .next stays complete, so `next start` still serves it.
  output: "standalone",
  // postgres.js and the engine run only on the Node runtime; keep them out of the bundle graph.
  serverExternalPackages: ["postgres"],
  poweredByHeader: false,
  async headers() {
    // When several entries set one header, the later entry wins (Next `headers()`): the consent page's CSP last.
    return [
      { source: "/:path*", headers: SECURITY_HEADERS },
      { source: "/oauth/authorize", headers: [{ key: "Content-Security-Policy", value: CONSENT_CSP }] },
    ];
  },
};

/**
 * `next start` (npm start, the test stacks) serves the ordinary .next of the same build. Told about
 * standalone output it only warns that server.js is the way (vercel/next.js `server/next.js`), so the
 * server phase is given the config without it: one build, both ways of serving it, no misleading warning.
 */
export default function config(phase: string): NextConfig {
  if (phase !== PHASE_PRODUCTION_SERVER) return nextConfig;
  const { output: _standalone, ...served } = nextConfig;
  return served;
}
