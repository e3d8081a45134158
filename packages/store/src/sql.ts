/**
 * Small SQL helpers every store user shares (the engine's ops, the entity queries, the read models).
 */

/**
 * For the hot-path statements (create, claim, checkpoint, finish, renew, replay load): their SQL is
 * static, so a named prepared statement per connection saves the parse and plan on every call.
 * (postgres.js prepares tagged templates by default but `unsafe` only when asked.)
 */
export const PREPARED = { prepare: true } as const;

/**
 * A value for a `$n::text::jsonb` parameter: sent as JSON text and parsed by Postgres. (Passing the
 * raw value lets postgres.js pick a parameter type from it — a boolean becomes `bool`, which does
 * not cast to jsonb — so every jsonb parameter goes through text.)
 */
export function jsonParam(value: unknown): string {
  return JSON.stringify(value ?? null);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A well-formed UUID (any version). Every lookup by ID checks this first: a malformed ID is then
 * "not found" like any unknown one, instead of a Postgres cast error.
 */
export function isUuid(value: unknown): value is string {
  return typeof value === "string" && UUID.test(value);
}

/** Postgres unique_violation (23505): a duplicate slug, email, tool name or key. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "23505";
}
