import { z } from "zod";
import { isLoopbackHostname } from "./config";
import { redirectUriProblem } from "./redirect-uris";
import { parseScopeString, scopeString } from "./scopes";

/**
 * Client metadata (RFC 7591 §2), as sent to the registration endpoint or served as a Client ID
 * Metadata Document. Only the fields this server uses are read; others are ignored, as RFC 7591 §2
 * requires ("MUST ignore any client metadata sent by the client that it does not understand").
 */
const ZClientMetadata = z.object({
  redirect_uris: z.array(z.string()).min(1).max(20),
  client_name: z.string().trim().min(1).max(200).optional(),
  client_uri: z.string().max(2_048).optional(),
  logo_uri: z.string().max(2_048).optional(),
  scope: z.string().max(1_000).optional(),
  grant_types: z.array(z.string().max(200)).max(10).optional(),
  response_types: z.array(z.string().max(200)).max(10).optional(),
  token_endpoint_auth_method: z.string().max(200).optional(),
  software_id: z.string().max(200).optional(),
  software_version: z.string().max(200).optional(),
});

export type ClientMetadata = {
  clientName: string;
  redirectUris: string[];
  grantTypes: string[];
  responseTypes: string[];
  tokenEndpointAuthMethod: "none";
  /** Normalised space-separated scopes, or null when the client named none. */
  scope: string | null;
  clientUri: string | null;
  logoUri: string | null;
  softwareId: string | null;
  softwareVersion: string | null;
};

export type ClientMetadataResult =
  | { ok: true; metadata: ClientMetadata }
  | { ok: false; error: "invalid_redirect_uri" | "invalid_client_metadata"; description: string };

const GRANT_TYPES = new Set(["authorization_code", "refresh_token"]);

/**
 * Validates client metadata. `authMethod`: what to do with a token_endpoint_auth_method other than
 * `none` — DCR substitutes `none` (RFC 7591 §3.2.1 lets the server replace requested values, and the
 * answer tells the client what it got); a metadata document states its own method, so one we cannot
 * verify (private_key_jwt, secrets) is refused.
 */
export function checkClientMetadata(raw: unknown, options: { authMethod: "substitute" | "require-none" }): ClientMetadataResult {
  const parsed = ZClientMetadata.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") || "metadata";
    const error = field.startsWith("redirect_uris") ? "invalid_redirect_uri" : "invalid_client_metadata";
    return { ok: false, error, description: `${field}: ${issue?.message ?? "invalid"}` };
  }
  const input = parsed.data;
  // Stored as text and jsonb, which refuse U+0000 and unpaired surrogates (a store error, a 500, otherwise).
  if (
    !Object.values(input)
      .flat()
      .every((value) => typeof value !== "string" || storableText(value))
  ) {
    return invalid("metadata strings must not contain U+0000 or unpaired surrogates");
  }
  for (const uri of input.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) return { ok: false, error: "invalid_redirect_uri", description: `${problem}: ${uri.slice(0, 200)}` };
  }
  // Omitted: both (RFC 7591's default is authorization_code alone, but §3.2.1 lets the server
  // substitute, and every MCP client wants refresh tokens); the answer says what was registered.
  const grantTypes = input.grant_types ?? ["authorization_code", "refresh_token"];
  if (!grantTypes.includes("authorization_code") || grantTypes.some((grant) => !GRANT_TYPES.has(grant))) {
    return invalid("grant_types must include authorization_code and may add refresh_token only");
  }
  const responseTypes = input.response_types ?? ["code"];
  if (responseTypes.some((type) => type !== "code")) return invalid('response_types supports "code" only');
  const method = input.token_endpoint_auth_method ?? "none";
  if (method !== "none" && options.authMethod === "require-none") {
    return invalid('token_endpoint_auth_method must be "none": this server accepts public clients only');
  }
  let scope: string | null = null;
  if (input.scope !== undefined) {
    const scopes = parseScopeString(input.scope);
    if (!scopes) return invalid("scope names a scope this server does not support");
    scope = scopeString(scopes) || null;
  }
  for (const [field, value] of [
    ["client_uri", input.client_uri],
    ["logo_uri", input.logo_uri],
  ] as const) {
    if (value !== undefined && !isWebUrl(value)) return invalid(`${field} must be an https URL`);
  }
  return {
    ok: true,
    metadata: {
      clientName: input.client_name ?? "Unnamed client",
      redirectUris: [...new Set(input.redirect_uris)],
      grantTypes: [...new Set(grantTypes)],
      responseTypes: ["code"],
      tokenEndpointAuthMethod: "none",
      scope,
      clientUri: input.client_uri ?? null,
      logoUri: input.logo_uri ?? null,
      softwareId: input.software_id ?? null,
      softwareVersion: input.software_version ?? null,
    },
  };
}

function invalid(description: string): ClientMetadataResult {
  return { ok: false, error: "invalid_client_metadata", description };
}

/** https, or http on loopback (a development client's own page); shown to people on the consent page. */
function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHostname(url.hostname));
  } catch {
    return false;
  }
}

/** The metadata as RFC 7591 §3.2.1 returns it (and as stored with the client). */
export function metadataDocumentOf(metadata: ClientMetadata): Record<string, unknown> {
  return {
    client_name: metadata.clientName,
    redirect_uris: metadata.redirectUris,
    grant_types: metadata.grantTypes,
    response_types: metadata.responseTypes,
    token_endpoint_auth_method: metadata.tokenEndpointAuthMethod,
    ...(metadata.scope ? { scope: metadata.scope } : {}),
    ...(metadata.clientUri ? { client_uri: metadata.clientUri } : {}),
    ...(metadata.logoUri ? { logo_uri: metadata.logoUri } : {}),
    ...(metadata.softwareId ? { software_id: metadata.softwareId } : {}),
    ...(metadata.softwareVersion ? { software_version: metadata.softwareVersion } : {}),
  };
}

// In a /u regex, paired surrogates are one code point, so \p{Cs} matches only unpaired halves (as lib/tasks/signal-rules.ts).
const UNPAIRED_SURROGATE = /\p{Cs}/u;

function storableText(text: string): boolean {
  return !text.includes("\u0000") && !UNPAIRED_SURROGATE.test(text);
}
