import { randomBytes } from "node:crypto";
import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

/**
 * The MCP client's side of OAuth as the SDK v1 client asks a host application for it, kept in
 * memory: what it registered (DCR) or its metadata URL (CIMD), tokens, the PKCE verifier. The
 * "browser" step is recorded, not performed: the test drives Chromium to `authorizationUrls`.
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  readonly authorizationUrls: URL[] = [];
  /** Every token set the SDK saved, in order (a refresh adds one). */
  readonly savedTokens: OAuthTokens[] = [];
  private client: OAuthClientInformationMixed | undefined;
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;
  /** The `state` of the latest authorization request, to match the redirect against. */
  lastState: string | undefined;

  constructor(
    private readonly options: {
      redirectUrl: string;
      clientName: string;
      /** CIMD: the https URL of this client's metadata document (the SDK then uses it as client_id). */
      clientMetadataUrl?: string;
    },
  ) {}

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.clientName,
      redirect_uris: [this.options.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    this.lastState = randomBytes(16).toString("base64url");
    return this.lastState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.savedTokens.at(-1);
  }

  saveTokens(tokens: OAuthTokens): void {
    this.savedTokens.push(tokens);
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrls.push(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error("no PKCE verifier saved: the SDK never started an authorization");
    return this.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "client") this.client = undefined;
    if (scope === "all" || scope === "tokens") this.savedTokens.length = 0;
    if (scope === "all" || scope === "verifier") this.verifier = undefined;
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
  }

  /** The registered client_id (DCR: the server's; CIMD: the metadata URL). */
  get clientId(): string | undefined {
    return this.client?.client_id;
  }
}
