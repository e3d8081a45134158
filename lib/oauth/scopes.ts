import { isScope, SCOPES, type Scope } from "../auth";

/**
 * Scopes OAuth clients commonly add that mean nothing here: `offline_access` (OIDC) asks for a
 * refresh token, which every grant gets anyway. Accepted and dropped rather than refused.
 */
const IGNORED_SCOPES = new Set(["offline_access"]);

/** A space-separated scope string (RFC 6749 §3.3) → our scopes; undefined when one is unknown. */
export function parseScopeString(value: string): Scope[] | undefined {
  const scopes: Scope[] = [];
  for (const token of value.split(" ").filter(Boolean)) {
    if (IGNORED_SCOPES.has(token)) continue;
    if (!isScope(token)) return undefined;
    if (!scopes.includes(token)) scopes.push(token);
  }
  return scopes;
}

/** Scopes in the canonical order of SCOPES, as one string (token responses, stored client scope). */
export function scopeString(scopes: readonly string[]): string {
  return SCOPES.filter((scope) => scopes.includes(scope)).join(" ");
}

export function isSubsetOf(scopes: readonly string[], allowed: readonly string[]): boolean {
  return scopes.every((scope) => allowed.includes(scope));
}
