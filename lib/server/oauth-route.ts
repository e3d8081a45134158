import { createLogger } from "@runifold/sdk";
import { clientAddressFrom, parseTrustedProxies } from "../auth";
import { readEnv } from "../env";
import {
  authorizationServerMetadataResponse,
  handleRegistrationRequest,
  handleRevocationRequest,
  handleTokenRequest,
  type OAuthConfig,
  protectedResourceMetadataResponse,
  REGISTRATIONS_PER_MINUTE_PER_ADDRESS,
} from "../oauth";
import { RateBuckets } from "../rate-buckets";
import { type CorsPolicy, preflight, withCors } from "./cors";
import { getSql } from "./db";
import { allowedOrigins } from "./mcp-route";
import { webOAuthConfig } from "./oauth-config";

type Route = (request: Request) => Promise<Response>;

const log = () => createLogger("oauth", readEnv().RUNIFOLD_LOG_LEVEL);

/**
 * One OAuth endpoint: 404 when OAuth is off, CORS for the allowed origins (browser-based clients
 * call these directly), and a store failure answered 503 rather than a stack trace.
 */
function oauthRoute(methods: string[], handle: (config: OAuthConfig, request: Request) => Promise<Response>): Route {
  const policy: CorsPolicy = { allowedOrigins: allowedOrigins(), methods: [...methods, "OPTIONS"] };
  return withCors(async (request) => {
    const config = webOAuthConfig();
    if (!config) return Response.json({ error: "not_found" }, { status: 404 });
    try {
      return await handle(config, request);
    } catch (error) {
      log().error("oauth endpoint failed", { path: new URL(request.url).pathname, error: (error as Error).message });
      return Response.json(
        { error: "temporarily_unavailable", error_description: "Service temporarily unavailable" },
        { status: 503, headers: { "cache-control": "no-store" } },
      );
    }
  }, policy);
}

function oauthPreflight(methods: string[]): (request: Request) => Response {
  const policy: CorsPolicy = { allowedOrigins: allowedOrigins(), methods: [...methods, "OPTIONS"] };
  return (request) => preflight(request, policy);
}

/** GET /.well-known/oauth-protected-resource/api/mcp (RFC 9728). */
export function createProtectedResourceMetadataRoute(): { GET: Route; OPTIONS: (request: Request) => Response } {
  return {
    GET: oauthRoute(["GET"], async (config) => protectedResourceMetadataResponse(config)),
    OPTIONS: oauthPreflight(["GET"]),
  };
}

/** GET /.well-known/oauth-authorization-server (RFC 8414). */
export function createAuthorizationServerMetadataRoute(): { GET: Route; OPTIONS: (request: Request) => Response } {
  return {
    GET: oauthRoute(["GET"], async (config) => authorizationServerMetadataResponse(config)),
    OPTIONS: oauthPreflight(["GET"]),
  };
}

/** Registrations per client address, for this process (the endpoint is open, as MCP clients expect). */
const registrationRate = new RateBuckets(REGISTRATIONS_PER_MINUTE_PER_ADDRESS);

/** POST /api/oauth/register (RFC 7591). */
export function createRegistrationRoute(): { POST: Route; OPTIONS: (request: Request) => Response } {
  return {
    POST: oauthRoute(["POST"], (_config, request) =>
      handleRegistrationRequest(getSql(), request, {
        rate: registrationRate,
        clientAddress: clientAddressFrom(request.headers, parseTrustedProxies(readEnv().RUNIFOLD_TRUSTED_PROXIES)),
      }),
    ),
    OPTIONS: oauthPreflight(["POST"]),
  };
}

/** POST /api/oauth/token (OAuth 2.1 §3.2). */
export function createTokenRoute(): { POST: Route; OPTIONS: (request: Request) => Response } {
  return {
    POST: oauthRoute(["POST"], (config, request) => handleTokenRequest(getSql(), config, request)),
    OPTIONS: oauthPreflight(["POST"]),
  };
}

/** POST /api/oauth/revoke (RFC 7009). */
export function createRevocationRoute(): { POST: Route; OPTIONS: (request: Request) => Response } {
  return {
    POST: oauthRoute(["POST"], (_config, request) => handleRevocationRequest(getSql(), request)),
    OPTIONS: oauthPreflight(["POST"]),
  };
}
