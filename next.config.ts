import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // postgres.js and the engine run only on the Node runtime; keep them out of the bundle graph.
  serverExternalPackages: ["postgres"],
  poweredByHeader: false,
};

export default nextConfig;
