import { readEnv } from "../env";
import { createOAuthConfig, type OAuthConfig } from "../oauth";

/**
 * The web process's OAuth configuration: on when RUNIFOLD_PUBLIC_URL is set (docs/oauth.md),
 * undefined otherwise (the well-known routes answer 404 and 401s name no metadata). Built once.
 */
let cached: { config: OAuthConfig | undefined } | undefined;

export function webOAuthConfig(): OAuthConfig | undefined {
  if (cached) return cached.config;
  const env = readEnv();
  const config = env.RUNIFOLD_PUBLIC_URL
    ? createOAuthConfig({
        publicUrl: env.RUNIFOLD_PUBLIC_URL,
        accessTokenTtlS: env.RUNIFOLD_OAUTH_ACCESS_TOKEN_TTL_S,
        refreshTokenTtlS: env.RUNIFOLD_OAUTH_REFRESH_TOKEN_TTL_S,
        metadataDocuments: { allowLoopback: env.RUNIFOLD_OAUTH_LOOPBACK_CIMD === "true" },
      })
    : undefined;
  cached = { config };
  return config;
}
