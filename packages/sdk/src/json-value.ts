import { WorkflowMisuse } from "./errors";

export type EncodedJson = {
  /** The JSON text that goes to the store (a `$n::text::jsonb` parameter). */
  text: string;
  /** `JSON.parse(text)`: what every later replay reads back, so the first execution sees it too. */
  value: unknown;
};

/**
 * Encodes a value the engine is about to store, before any statement runs: a value JSON cannot
 * represent (a BigInt, a cycle) or one over `maxBytes` is a workflow bug, refused with a
 * non-retryable error that names `what` — never a store error that would be retried.
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
  return { text, value: JSON.parse(text) };
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
