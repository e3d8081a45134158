import type { LookupAddress } from "node:dns";

/** Resolves a host name to every address it has (the CIMD fetcher checks all of them before connecting). */
export type HostLookup = (hostname: string) => Promise<LookupAddress[]>;

/** How Client ID Metadata Documents are fetched (docs/oauth.md "Client ID Metadata Documents"). */
export type MetadataDocumentPolicy = {
  /**
   * Whether a client_id on a literal loopback host (127.0.0.1, [::1], localhost) may be fetched,
   * over http too. Off in production; on when the server itself runs on loopback (development, tests).
   * Any other host must resolve to public addresses only, whatever this says.
   */
  allowLoopback: boolean;
  /** The whole fetch (connect, headers, body) is aborted after this long. */
  timeoutMs: number;
  /** A larger document is refused; the body is read as a stream and abandoned at this size. */
  maxBytes: number;
  /** How long a fetched document is used when its response names no max-age, and the bounds any max-age is clamped to. */
  defaultMaxAgeS: number;
  minMaxAgeS: number;
  maxMaxAgeS: number;
  /** DNS resolution (default: the system resolver, every address). Tests substitute a resolver. */
  lookup?: HostLookup;
};

/** Everything the authorization server and the resource server derive from RUNIFOLD_PUBLIC_URL. */
export type OAuthConfig = {
  /** RFC 8414 issuer: RUNIFOLD_PUBLIC_URL without a trailing slash (origin, plus its path if any). */
  issuer: string;
  /** RFC 8707 / RFC 9728 canonical resource: `${issuer}/api/mcp`; every token is bound to it. */
  resource: string;
  /** Where this resource's Protected Resource Metadata is served (named in every 401). */
  resourceMetadataUrl: string;
  resourceName: string;
  accessTokenTtlS: number;
  refreshTokenTtlS: number;
  authorizationCodeTtlS: number;
  metadataDocuments: MetadataDocumentPolicy;
};

export const ACCESS_TOKEN_TTL_S = 3_600;
export const REFRESH_TOKEN_TTL_S = 30 * 86_400;
/** Codes live 60 s: long enough for a redirect and an exchange, short enough to limit a leaked one. */
export const AUTHORIZATION_CODE_TTL_S = 60;

const LOOPBACK_HOSTNAMES = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** A literal loopback host name as URL.hostname spells it (IPv6 in brackets). */
export function isLoopbackHostname(hostname: string): boolean {
  return LOOPBACK_HOSTNAMES.has(hostname.toLowerCase());
}

/**
 * Builds the configuration from the public URL. The URLs are never derived from request headers
 * (Host, X-Forwarded-*): a spoofed header cannot move the audience or the metadata.
 */
export function createOAuthConfig(options: {
  publicUrl: string;
  accessTokenTtlS?: number;
  refreshTokenTtlS?: number;
  authorizationCodeTtlS?: number;
  resourceName?: string;
  metadataDocuments?: Partial<MetadataDocumentPolicy>;
}): OAuthConfig {
  const url = new URL(options.publicUrl);
  const path = url.pathname.replace(/\/+$/, "");
  const issuer = `${url.origin}${path}`;
  return {
    issuer,
    resource: `${issuer}/api/mcp`,
    // The app serves its metadata beside its own routes: with a path in the public URL, the app is
    // mounted under that path, so the document is too (the 401 names it absolutely; RFC 9728 §5.1).
    resourceMetadataUrl: `${issuer}/.well-known/oauth-protected-resource/api/mcp`,
    resourceName: options.resourceName ?? "Runifold",
    accessTokenTtlS: options.accessTokenTtlS ?? ACCESS_TOKEN_TTL_S,
    refreshTokenTtlS: options.refreshTokenTtlS ?? REFRESH_TOKEN_TTL_S,
    authorizationCodeTtlS: options.authorizationCodeTtlS ?? AUTHORIZATION_CODE_TTL_S,
    metadataDocuments: {
      // Off unless asked for (RUNIFOLD_OAUTH_LOOPBACK_CIMD=true, tests): with it on, any signed-in
      // person can make the server GET any loopback port and path by naming it as a client_id
      // (review F12; npm start's public URL is loopback even when it listens on every interface).
      allowLoopback: false,
      timeoutMs: 5_000,
      maxBytes: 65_536,
      defaultMaxAgeS: 3_600,
      minMaxAgeS: 60,
      maxMaxAgeS: 86_400,
      ...options.metadataDocuments,
    },
  };
}
