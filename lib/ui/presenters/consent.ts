import "server-only";
import type { SqlHandle } from "@runifold/store";
import type { Operator, Scope } from "../../auth";
import { type AuthorizationClient, type OAuthConfig, redirectHostOf, validateAuthorizationRequest } from "../../oauth";
import { listVisibleTenants } from "./tenants";

/** A tenant the person may connect a client to. */
export type ConsentTenant = { id: string; slug: string; name: string };

export type ConsentScope = {
  scope: Scope;
  /** What it lets the client do, in the words the page shows. */
  description: string;
  /** Without it no request succeeds, so it is granted whenever it was asked for (not a choice). */
  required: boolean;
};

/**
 * What the consent page shows: the person's decision form, or an error page. The page never
 * redirects on an error by itself (RFC 9700 §4.11.2: an authorization server may redirect
 * automatically only to a redirect URI it trusts, and anyone can register a client here, DCR, or
 * describe one, CIMD). When the redirect URI is the client's registered one, the error page offers
 * `returnTo`: a link back to the client with the OAuth error, naming its host, that the person may
 * follow. Without it (unknown client, unregistered redirect URI) nothing is sent back at all.
 */
export type ConsentView =
  | { kind: "error"; error: string; description: string; returnTo?: { url: string; host: string } }
  | {
      kind: "consent";
      client: AuthorizationClient;
      scopes: ConsentScope[];
      tenants: ConsentTenant[];
      /** The authorize query, carried by the form and validated again when the person answers. */
      request: string;
    };

const SCOPE_TEXT: Record<Scope, string> = {
  mcp: "Connect to this server and list its tools (it cannot run them without tasks:write)",
  "tasks:read": "Read the status and results of the tasks it starts",
  "tasks:write": "Run its tools (each call starts a task), answer their questions and cancel them, in your name",
};

export function describeScopes(scopes: readonly Scope[]): ConsentScope[] {
  return scopes.map((scope) => ({ scope, description: SCOPE_TEXT[scope], required: scope === "mcp" }));
}

/**
 * The tenants the person may act in through a client: an operator's memberships; an admin may act
 * in every tenant (as in the console, and as lib/oauth's code exchange re-checks). Disabled
 * tenants are left out: their credentials stop working anyway.
 */
export async function consentTenants(sql: SqlHandle, operator: Operator): Promise<ConsentTenant[]> {
  const tenants = await listVisibleTenants(sql, operator);
  return tenants.filter((t) => t.disabled_at === null).map((t) => ({ id: t.id, slug: t.slug, name: t.name }));
}

/** Loads the consent page for a signed-in operator: validates the authorize query first (lib/oauth). */
export async function presentConsent(
  sql: SqlHandle,
  config: OAuthConfig,
  operator: Operator,
  params: URLSearchParams,
): Promise<ConsentView> {
  const validated = await validateAuthorizationRequest(sql, config, params);
  if (!validated.ok) {
    const view: ConsentView = { kind: "error", error: validated.error, description: validated.description };
    return validated.redirect
      ? { ...view, returnTo: { url: validated.redirect, host: redirectHostOf(validated.redirect) } }
      : view;
  }
  return {
    kind: "consent",
    client: validated.client,
    scopes: describeScopes(validated.scopes),
    tenants: await consentTenants(sql, operator),
    request: params.toString(),
  };
}
