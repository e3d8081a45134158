/**
 * A value for a `$n::text::jsonb` parameter: sent as JSON text and parsed by Postgres. (Passing the
 * raw value lets postgres.js pick a parameter type from it — a boolean becomes `bool`, which does
 * not cast to jsonb — so every jsonb parameter goes through text.)
 */
export function jsonParam(value: unknown): string {
  return JSON.stringify(value ?? null);
}
