import { randomBytes } from "node:crypto";
import type { SqlHandle } from "../../db/client";
import { insertRegisteredClient } from "../../db/queries/oauth-clients";
import { auditOAuth } from "./audit-oauth";
import { checkClientMetadata, metadataDocumentOf } from "./client-metadata";
import { readBodyText } from "./read-body";
import { oauthError, oauthJson } from "./responses";

/**
 * POST /api/oauth/register: RFC 7591 Dynamic Client Registration for public clients, open (no
 * initial access token), as MCP clients expect. The client gets a random client_id and the
 * metadata as registered (§3.2.1), never a secret; errors are §3.2.2's.
 */
export async function handleRegistrationRequest(sql: SqlHandle, request: Request): Promise<Response> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") return oauthError("invalid_client_metadata", "the body must be application/json");
  const body = await readBodyText(request);
  if (!body.ok) return oauthError("invalid_client_metadata", "the body is too large or unreadable", body.tooLarge ? 413 : 400);
  let raw: unknown;
  try {
    raw = JSON.parse(body.text);
  } catch {
    return oauthError("invalid_client_metadata", "the body is not valid JSON");
  }
  const checked = checkClientMetadata(raw, { authMethod: "substitute" });
  if (!checked.ok) return oauthError(checked.error, checked.description);
  const metadata = checked.metadata;
  const document = metadataDocumentOf(metadata);
  const client = await insertRegisteredClient(sql, {
    id: `dcr_${randomBytes(16).toString("base64url")}`,
    clientName: metadata.clientName,
    redirectUris: metadata.redirectUris,
    scope: metadata.scope,
    clientUri: metadata.clientUri,
    logoUri: metadata.logoUri,
    metadata: document,
  });
  await auditOAuth(sql, "oauth.client_registered", { clientId: client.id, kind: "dcr", clientName: metadata.clientName });
  return oauthJson(
    { client_id: client.id, client_id_issued_at: Math.floor(client.created_at.getTime() / 1000), ...document },
    201,
  );
}
