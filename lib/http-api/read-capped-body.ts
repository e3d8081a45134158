export type CappedBody = { kind: "ok"; bytes: Uint8Array } | { kind: "too_large" } | { kind: "unreadable" };

/** After the cap is passed, this much more is read and dropped before the stream is cancelled. */
const DISCARD_LIMIT_BYTES = 4 * 1_048_576;

/**
 * Reads a request body while holding at most `maxBytes` of it. The cap applies to the bytes that
 * arrive, so a chunked body (no Content-Length) or one that lies about its length is cut off at
 * the cap; a declared Content-Length above the cap is refused before anything is read.
 */
export async function readCappedBody(request: Request, maxBytes: number): Promise<CappedBody> {
  if (!request.body) return { kind: "ok", bytes: new Uint8Array() };
  const reader = request.body.getReader();
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    discardRest(reader);
    return { kind: "too_large" };
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (let part = await reader.read(); !part.done; part = await reader.read()) {
      total += part.value.byteLength;
      if (total > maxBytes) {
        discardRest(reader);
        return { kind: "too_large" };
      }
      chunks.push(part.value);
    }
  } catch {
    // The client went away mid-body (or the stream broke): there is nothing to answer to.
    return { kind: "unreadable" };
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { kind: "ok", bytes };
}

/**
 * Drops what is still in flight, in the background and bounded, then cancels. Not a cancel at once:
 * Node's HTTP server destroys the socket when an unfinished request stream is cancelled, which can
 * lose the 413 before the client reads it (a lingering close, as web servers do). Nothing is kept.
 */
function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>): void {
  void (async () => {
    let discarded = 0;
    while (discarded <= DISCARD_LIMIT_BYTES) {
      const part = await reader.read();
      if (part.done) return;
      discarded += part.value.byteLength;
    }
    await reader.cancel();
  })().catch(() => {});
}

/** A read body as JSON: the value, or `invalid` when its bytes are not UTF-8 JSON. */
export type ParsedJson = { ok: true; value: unknown } | { ok: false };

const parsedBodies = new WeakMap<Uint8Array, ParsedJson>();

/**
 * Parses a read body once, however many readers ask (the MCP auth gate's read-ahead and the
 * handler both look at a legacy request's body): the parse is remembered with the bytes. Readers
 * must not mutate the value they get.
 */
export function parseJsonBody(body: { kind: "ok"; bytes: Uint8Array }): ParsedJson {
  const known = parsedBodies.get(body.bytes);
  if (known) return known;
  let parsed: ParsedJson;
  try {
    parsed = { ok: true, value: JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body.bytes)) };
  } catch {
    parsed = { ok: false };
  }
  parsedBodies.set(body.bytes, parsed);
  return parsed;
}
