/**
 * What a signal sent from outside may look like. One definition for every channel that signals a
 * task by handle (the HTTP endpoint, the CLI through it); the engine's own `sendSignal` stays
 * unrestricted for backends that call it with store access.
 */

/**
 * Signal names: letters, digits and `_ . : -`, 1–128 characters. Narrow on purpose: a name travels
 * as a URL path segment and in logs, so nothing needs escaping. A workflow that waits for a name
 * outside this set can only be signalled through the SDK.
 */
export const SIGNAL_NAME_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;

/** A payload's cap, in bytes of its JSON text: signals are nudges with data, not file uploads. */
export const SIGNAL_PAYLOAD_MAX_BYTES = 65_536;

/** Deeper payloads are refused: Postgres parses jsonb recursively, and nothing legitimate nests this far. */
export const SIGNAL_PAYLOAD_MAX_DEPTH = 64;

export function isSignalName(value: string): boolean {
  return SIGNAL_NAME_PATTERN.test(value);
}

/**
 * Why a payload cannot be stored as jsonb, or undefined when it can: U+0000 and lone surrogates are
 * refused by Postgres (they would surface as a store error instead of a clear 400), and so is
 * nesting beyond SIGNAL_PAYLOAD_MAX_DEPTH. Iterative, so a hostile payload cannot overflow the stack.
 */
export function unstorablePayloadReason(payload: unknown): string | undefined {
  const pending: { value: unknown; depth: number }[] = [{ value: payload, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, depth } = next;
    if (typeof value === "string") {
      if (!isStorableText(value)) return "strings must not contain U+0000 or unpaired surrogates";
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    if (depth >= SIGNAL_PAYLOAD_MAX_DEPTH) return `payload nests deeper than ${SIGNAL_PAYLOAD_MAX_DEPTH} levels`;
    for (const [key, child] of Object.entries(value)) {
      if (!isStorableText(key)) return "keys must not contain U+0000 or unpaired surrogates";
      pending.push({ value: child, depth: depth + 1 });
    }
  }
  return undefined;
}

// In a /u regex, paired surrogates are one code point, so \p{Cs} matches only unpaired halves.
const UNPAIRED_SURROGATE = /\p{Cs}/u;

function isStorableText(text: string): boolean {
  return !text.includes("\u0000") && !UNPAIRED_SURROGATE.test(text);
}
