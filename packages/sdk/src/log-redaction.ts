/**
 * What the logger removes from every line before it is written: values under secret-looking keys
 * (at any depth, not only at paths named in advance, because callers log whatever object they hold)
 * and secrets inside strings — Runifold API keys, bearer credentials, passwords in URLs. A line is
 * for machines and the people who read them; a secret in it would outlive every rotation.
 */
export const REDACTED = "[REDACTED]";

/** Keys whose values are secrets whatever they hold: authorization, cookies, passwords, tokens, keys. */
const SECRET_KEY = /authori[sz]ation|cookie|passw(or)?d|secret|token|api[-_]?key|credential|private[-_]?key|signature/i;

const SECRET_STRINGS: [RegExp, string][] = [
  // API keys `rf_<keyId>_<secret>`: the key id (not secret, and what an operator looks up) stays.
  [/\b(rf_[0-9a-f]{16}_)[A-Za-z0-9_-]+/g, `$1${REDACTED}`],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`],
  // postgres://user:password@host — the user and host help; the password never does.
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/gi, `$1${REDACTED}@`],
];

const MAX_DEPTH = 8;

export function redactString(value: string): string {
  let out = value;
  for (const [pattern, replacement] of SECRET_STRINGS) out = out.replace(pattern, replacement);
  return out;
}

/**
 * A copy of `value` with secrets replaced; the input is never modified (callers may log objects they
 * still use). Errors become `{name, message}` (their own fields would otherwise be dropped by JSON).
 */
export function redactValue(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === "string") return redactString(value);
  if (typeof value !== "object" || value === null) return value;
  if (seen.has(value)) return "[Circular]";
  if (depth >= MAX_DEPTH) return "[Truncated]";
  seen.add(value);
  if (value instanceof Error) return { name: value.name, message: redactString(value.message) };
  if (value instanceof Date) return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1, seen));
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    out[key] = SECRET_KEY.test(key) && child !== null && child !== undefined ? REDACTED : redactValue(child, depth + 1, seen);
  }
  return out;
}
