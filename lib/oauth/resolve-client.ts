import type { SqlHandle } from "@runifold/store";
import { findOAuthClient, type OAuthClientRow } from "../../db/queries/oauth-clients";
import type { OAuthConfig } from "./config";
import { isMetadataDocumentClientId, loadMetadataDocumentClient } from "./metadata-document";

export type ResolvedClient = { ok: true; client: OAuthClientRow } | { ok: false; description: string };

/**
 * The client a client_id names: a URL is a Client ID Metadata Document (fetched and cached), any
 * other value must have been registered (RFC 7591). Unknown and refused clients are never trusted
 * with a redirect.
 */
export async function resolveClient(sql: SqlHandle, config: OAuthConfig, clientId: string): Promise<ResolvedClient> {
  if (isMetadataDocumentClientId(clientId)) return loadMetadataDocumentClient(sql, config, clientId);
  const client = clientId.length <= 200 ? await findOAuthClient(sql, clientId) : undefined;
  if (client?.kind !== "dcr") return { ok: false, description: "unknown client_id" };
  return { ok: true, client };
}

/** Whether the client registered the refresh_token grant (only then does it get refresh tokens). */
export function clientUsesRefreshTokens(client: OAuthClientRow): boolean {
  const grantTypes = client.metadata.grant_types;
  return Array.isArray(grantTypes) && grantTypes.includes("refresh_token");
}
