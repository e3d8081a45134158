import { WorkflowMisuse } from "./errors";

export type EncodedJson = {
  /** The JSON text that goes to the store (a `$n::text::jsonb` parameter). */
  text: string;
  /** `JSON.parse(text)`: what every later replay reads back, so the first execution sees it too. */
  value: unknown;
};

/** Why jsonb refuses a string (SQLSTATE 22P05 for U+0000, 22P02 for a lone surrogate). */
export const UNSTORABLE_TEXT = "strings must not contain U+0000 or unpaired surrogates";

/**
 * Encodes a value the engine is about to store, before any statement runs: a value JSON cannot
 * represent (a BigInt, a cycle), one jsonb refuses (a string or key holding U+0000 or an unpaired
 * surrogate) or one over `maxBytes` is a workflow bug, refused with a non-retryable error that
 * names `what` (and where in it) — never a store error that would fail the statement, and with it
 * every other run's write coalesced into that statement (write-coalescer.ts).
 */
export function encodeJson(value: unknown, what: string, maxBytes: number): EncodedJson {
  let text: string | undefined;
  try {
    text = JSON.stringify(value ?? null);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new WorkflowMisuse("not_serialisable", `${what} is not JSON-serialisable: ${reason}`);
  }
  // A function or a symbol alone stringifies to undefined: it is stored as null, like a missing value.
  text ??= "null";
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > maxBytes) {
    throw new WorkflowMisuse("payload_too_large", `${what} is ${formatBytes(bytes)}, over the limit of ${formatBytes(maxBytes)}`);
  }
  const parsed: unknown = JSON.parse(text);
  if (hasUnstorableEscape(text)) {
    const path = unstorableTextPath(parsed) ?? "";
    const where = path === "" ? "" : ` at ${path}`;
    throw new WorkflowMisuse("not_serialisable", `${what} holds U+0000 or an unpaired surrogate${where}: ${UNSTORABLE_TEXT}`);
  }
  return { text, value: parsed };
}

// JSON.stringify writes U+0000 as `\u0000` and an unpaired surrogate as `\udXXX` (well-formed
// stringify, ES2019); every other character it writes as is or with a short escape, and a
// backslash as `\\`. So an escape preceded by an even run of backslashes is one of the two.
const UNSTORABLE_ESCAPE = /(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f][0-9a-f]{2})/;

function hasUnstorableEscape(jsonText: string): boolean {
  return jsonText.includes("\\u") && UNSTORABLE_ESCAPE.test(jsonText);
}

// In a /u regex a paired surrogate is one code point, so \p{Cs} matches only unpaired halves.
const UNPAIRED_SURROGATE = /\p{Cs}/u;
const UNPAIRED_SURROGATES = /\p{Cs}/gu;

function isStorableText(text: string): boolean {
  return !text.includes("\u0000") && !UNPAIRED_SURROGATE.test(text);
}

/**
 * Where in a JSON value a string or key jsonb refuses is (`items.0.name`), or undefined when there is
 * none. Iterative, so a deep value cannot overflow the stack. Path segments are made storable, so the
 * answer can go into a stored message.
 */
export function unstorableTextPath(root: unknown): string | undefined {
  const pending: { value: unknown; path: string[] }[] = [{ value: root, path: [] }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path } = next;
    if (typeof value === "string") {
      if (!isStorableText(value)) return path.join(".");
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    for (const [key, child] of Object.entries(value)) {
      if (!isStorableText(key)) return [...path, storableText(key, 200)].join(".");
      pending.push({ value: child, path: [...path, key] });
    }
  }
  return undefined;
}

/**
 * Text the store can always hold, for messages the engine writes itself (failure causes, status
 * messages): U+0000 and unpaired surrogates become U+FFFD, and the text is cut at `maxChars` code
 * points — a cut by UTF-16 unit (`slice`) can split an emoji and leave half of it, which jsonb refuses.
 */
export function storableText(text: string, maxChars: number): string {
  // A code point is at most two units: this bound keeps Array.from cheap on a huge message.
  const head = text.length > maxChars * 2 ? text.slice(0, maxChars * 2) : text;
  const points = Array.from(head);
  const cut = points.length > maxChars ? points.slice(0, maxChars).join("") : head;
  return cut.replaceAll("\u0000", "\uFFFD").replace(UNPAIRED_SURROGATES, "\uFFFD");
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
