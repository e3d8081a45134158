import type { SqlHandle } from "@runifold/store";
import { findOAuthClient, type OAuthClientRow, upsertMetadataDocumentClient } from "../../db/queries/oauth-clients";
import { auditOAuth } from "./audit-oauth";
import { checkClientMetadata, metadataDocumentOf } from "./client-metadata";
import { isLoopbackHostname, type MetadataDocumentPolicy, type OAuthConfig } from "./config";
import { guardedFetch } from "./guarded-fetch";

export type MetadataDocumentClient = { ok: true; client: OAuthClientRow } | { ok: false; description: string };

/** A client_id that is a URL names a Client ID Metadata Document (MCP 2025-11-25, CIMD draft §3). */
export function isMetadataDocumentClientId(clientId: string): boolean {
  return clientId.startsWith("https://") || clientId.startsWith("http://");
}

/**
 * Why `clientId` is not a usable document URL (CIMD draft §3): https (http only on a loopback host
 * the policy allows), a path other than `/`, no fragment, no user information, no dot segments.
 * The URL must be in canonical form (what the WHATWG parser prints), since the document's own
 * client_id is compared with it character for character.
 */
export function metadataDocumentUrlProblem(clientId: string, policy: MetadataDocumentPolicy): string | undefined {
  if (clientId.length > 2_048) return "client_id URL is too long";
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return "client_id is not a valid URL";
  }
  const loopback = isLoopbackHostname(url.hostname);
  if (loopback && !policy.allowLoopback) return "client_id URL is on a loopback host";
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) return "client_id URL must use https";
  if (url.username || url.password) return "client_id URL must not contain user information";
  if (url.hash || clientId.includes("#")) return "client_id URL must not contain a fragment";
  if (url.pathname === "/" || url.pathname === "") return "client_id URL must have a path";
  if (url.href !== clientId) return "client_id URL must be in canonical form (no dot segments, lowercase host)";
  return undefined;
}

/**
 * The client a metadata document describes: the cached copy while fresh, otherwise fetched through
 * the SSRF guard, validated and cached (honouring Cache-Control max-age within the policy's bounds).
 */
export async function loadMetadataDocumentClient(
  sql: SqlHandle,
  config: OAuthConfig,
  clientId: string,
): Promise<MetadataDocumentClient> {
  const policy = config.metadataDocuments;
  const problem = metadataDocumentUrlProblem(clientId, policy);
  if (problem) return { ok: false, description: problem };
  const cached = await findOAuthClient(sql, clientId);
  if (cached && cached.kind === "cimd" && cached.fresh) return { ok: true, client: cached };
  const fetched = await guardedFetch(new URL(clientId), policy);
  if (!fetched.ok) return { ok: false, description: `client metadata document refused: ${fetched.reason}` };
  if (!/json/i.test(fetched.contentType)) return { ok: false, description: "client metadata document is not JSON" };
  let document: unknown;
  try {
    document = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(fetched.body));
  } catch {
    return { ok: false, description: "client metadata document is not valid JSON" };
  }
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    return { ok: false, description: "client metadata document is not a JSON object" };
  }
  const fields = document as Record<string, unknown>;
  if (fields.client_id !== clientId) return { ok: false, description: "the document's client_id does not match its URL" };
  // CIMD draft §4.1: a document is public, so it must not carry a shared secret.
  if ("client_secret" in fields || "client_secret_expires_at" in fields) {
    return { ok: false, description: "a client metadata document must not contain client_secret" };
  }
  if (typeof fields.client_name !== "string") return { ok: false, description: "the document has no client_name" };
  const checked = checkClientMetadata(fields, { authMethod: "require-none" });
  if (!checked.ok) return { ok: false, description: checked.description };
  const metadata = checked.metadata;
  const client = await upsertMetadataDocumentClient(sql, {
    id: clientId,
    clientName: metadata.clientName,
    redirectUris: metadata.redirectUris,
    scope: metadata.scope,
    clientUri: metadata.clientUri,
    logoUri: metadata.logoUri,
    metadata: metadataDocumentOf(metadata),
    maxAgeS: cacheLifetimeS(fetched.cacheControl, policy),
  });
  if (!client) return { ok: false, description: "client_id is registered otherwise" };
  if (!cached) await auditOAuth(sql, "oauth.client_registered", { clientId, kind: "cimd", clientName: metadata.clientName });
  return { ok: true, client };
}

/** How long to use a fetched document: its max-age (no-store/no-cache: the minimum) within the bounds. */
export function cacheLifetimeS(cacheControl: string, policy: MetadataDocumentPolicy): number {
  const directives = cacheControl.toLowerCase();
  if (/(^|[\s,])(no-store|no-cache)([\s,=]|$)/.test(directives)) return policy.minMaxAgeS;
  const maxAge = /(^|[\s,])max-age=(\d+)/.exec(directives)?.[2];
  const seconds = maxAge === undefined ? policy.defaultMaxAgeS : Number(maxAge);
  return Math.min(policy.maxMaxAgeS, Math.max(policy.minMaxAgeS, seconds));
}
