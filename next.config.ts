import type { NextConfig } from "next";
import { PHASE_PRODUCTION_SERVER } from "next/constants";

/**
 * Security headers on every response (ASVS 14.4, L1): X-Frame-Options against clickjacking in old
 * browsers, nosniff, the referrer and permissions policies. Pages get their Content-Security-Policy
 * (with a per-request script nonce) and HSTS from proxy.ts instead: both must be decided per request
 * (a fresh nonce; the server's public URL), and `headers()` here is fixed when `next build` runs.
 */
const SECURITY_HEADERS = [
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=()" },
];

/**
 * What proxy.ts does not reach (it skips these paths): API and metadata answers keep the policy
 * pages had before the nonce. No `script-src` or `style-src`: next-auth renders a few HTML pages of
 * its own under /api/auth (GET /api/auth/signout) with an inline `<style>` and no nonce.
 */
const NON_PAGE_CSP = "frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'";
const NON_PAGE_HEADERS = [{ key: "Content-Security-Policy", value: NON_PAGE_CSP }];

const nextConfig: NextConfig = {
  // Every build also writes .next/standalone: server.js plus only the node_modules it traced, what the
  // `web` image runs (docs/deploy.md). The rest of .next stays complete, so `next start` still serves it.
  output: "standalone",
  // postgres.js and the engine run only on the Node runtime; keep them out of the bundle graph.
  serverExternalPackages: ["postgres"],
  poweredByHeader: false,
  async headers() {
    return [
      { source: "/:path*", headers: SECURITY_HEADERS },
      { source: "/api/:path*", headers: NON_PAGE_HEADERS },
      { source: "/.well-known/:path*", headers: NON_PAGE_HEADERS },
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
