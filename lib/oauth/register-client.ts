import { randomBytes } from "node:crypto";
import type { SqlHandle } from "@runifold/store";
import { insertRegisteredClient } from "../../db/queries/oauth-clients";
import { rateKeyOfAddress } from "../auth";
import type { RateBuckets } from "../rate-buckets";
import { auditOAuth } from "./audit-oauth";
import { checkClientMetadata, metadataDocumentOf } from "./client-metadata";
import { readBodyText } from "./read-body";
import { oauthError, oauthJson } from "./responses";

/**
 * Registrations one client address may make per minute (a burst of this many, then one every
 * 60 s / this): an MCP client registers once per installation, so this only stops a script from
 * filling the clients table through the open endpoint. Per web process, like every in-memory rate.
 */
export const REGISTRATIONS_PER_MINUTE_PER_ADDRESS = 10;

/** The registration rate and the address it is counted against (null: an address the process cannot tell). */
export type RegistrationLimit = { rate: RateBuckets; clientAddress: string | null };

/**
 * POST /api/oauth/register: RFC 7591 Dynamic Client Registration for public clients, open (no
 * initial access token), as MCP clients expect. The client gets a random client_id and the
 * metadata as registered (§3.2.1), never a secret; errors are §3.2.2's. With a `limit`, each client
 * address may register REGISTRATIONS_PER_MINUTE_PER_ADDRESS clients a minute (the web route passes one).
 */
export async function handleRegistrationRequest(sql: SqlHandle, request: Request, limit?: RegistrationLimit): Promise<Response> {
  if (limit) {
    // Counted before the body is read: a refused request costs no parsing and writes nothing.
    // 429 with Retry-After (RFC 6585 §4); RFC 7591 §3.2.2 defines only metadata errors, so the
    // body uses RFC 6749's `temporarily_unavailable`.
    // An IPv6 client counts by its /64 (rateKeyOfAddress, review F15).
    const taken = limit.rate.take(limit.clientAddress ? rateKeyOfAddress(limit.clientAddress) : "address-unknown");
    if (!taken.ok) {
      return oauthJson(
        { error: "temporarily_unavailable", error_description: "too many client registrations from this address; retry later" },
        429,
        { "retry-after": String(taken.retryAfterSeconds) },
      );
    }
  }
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
  await auditOAuth(
    sql,
    "oauth.client_registered",
    { clientId: client.id, kind: "dcr", clientName: metadata.clientName },
    null,
    limit?.clientAddress,
  );
  return oauthJson(
    { client_id: client.id, client_id_issued_at: Math.floor(client.created_at.getTime() / 1000), ...document },
    201,
  );
}
