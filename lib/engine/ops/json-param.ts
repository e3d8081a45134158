/**
 * A value for a `$n::jsonb` parameter. postgres.js serialises parameters the server declares
 * jsonb itself, so callers pass the value — stringifying first would store a JSON string.
 */
export function jsonParam(value: unknown): never {
  return (value ?? null) as never;
}
