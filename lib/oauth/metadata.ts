import { SCOPES } from "../auth";
import type { OAuthConfig } from "./config";
import { metadataJson, notFound } from "./responses";

/** RFC 9728 Protected Resource Metadata for /api/mcp. */
export function protectedResourceMetadata(config: OAuthConfig) {
  return {
    resource: config.resource,
    authorization_servers: [config.issuer],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: config.resourceName,
  };
}

/** The authorization server's endpoints, all under the issuer (never the request's Host). */
export function endpointsOf(config: OAuthConfig) {
  return {
    authorization: `${config.issuer}/oauth/authorize`,
    token: `${config.issuer}/api/oauth/token`,
    registration: `${config.issuer}/api/oauth/register`,
    revocation: `${config.issuer}/api/oauth/revoke`,
  };
}

/**
 * RFC 8414 Authorization Server Metadata. `client_id_metadata_document_supported` is the MCP
 * 2025-11-25 authorization spec's flag ("Client ID Metadata Documents" → "Discovery");
 * `authorization_response_iss_parameter_supported` because every redirect carries `iss` (RFC 9207).
 */
export function authorizationServerMetadata(config: OAuthConfig) {
  const endpoints = endpointsOf(config);
  return {
    issuer: config.issuer,
    authorization_endpoint: endpoints.authorization,
    token_endpoint: endpoints.token,
    registration_endpoint: endpoints.registration,
    revocation_endpoint: endpoints.revocation,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    scopes_supported: [...SCOPES],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}

/** GET of the PRM document; 404 when OAuth is off (no RUNIFOLD_PUBLIC_URL). */
export function protectedResourceMetadataResponse(config: OAuthConfig | undefined): Response {
  return config ? metadataJson(protectedResourceMetadata(config)) : notFound();
}

/** GET of the AS metadata document; 404 when OAuth is off. */
export function authorizationServerMetadataResponse(config: OAuthConfig | undefined): Response {
  return config ? metadataJson(authorizationServerMetadata(config)) : notFound();
}
