/**
 * A server-sent-events body answering one POST, or a session's standalone GET (Streamable HTTP):
 * JSON-RPC messages as `message` events plus keep-alive comments, so idle proxies do not cut a long
 * wait. No event IDs: the server keeps no event store, so there is nothing a `Last-Event-ID`
 * resumption could replay; a client whose stream drops calls tasks/result again, or re-opens its GET
 * stream, and gets every outstanding question re-sent.
 */
export type SseStream = {
  readonly response: Response;
  readonly closed: boolean;
  send(message: unknown): void;
  /** An SSE comment line (ignored by clients): flushes the headers of a stream with nothing to say yet. */
  comment(text: string): void;
  /** The SSE `retry` field: how long the client waits before reconnecting once this stream ends. */
  retry(ms: number): void;
  /** Ends the stream (after the final JSON-RPC response) and runs the cleanups. */
  close(): void;
  onClose(cleanup: () => void): void;
};

const KEEPALIVE_MS = 15_000;

export function openSse(signal: AbortSignal): SseStream {
  const encoder = new TextEncoder();
  const cleanups: (() => void)[] = [];
  let closed = false;
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  const finish = () => {
    if (closed) return;
    closed = true;
    for (const cleanup of cleanups.splice(0)) cleanup();
  };
  // start() runs synchronously inside the constructor, so `controller` is set before any send.
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel: finish,
  });
  const keepalive = setInterval(() => controller?.enqueue(encoder.encode(": keepalive\n\n")), KEEPALIVE_MS);
  cleanups.push(() => clearInterval(keepalive));
  const close = () => {
    if (closed) return;
    finish();
    controller?.close();
  };
  // The client went away: stop watching the task (the task itself is unaffected).
  const onAbort = () => close();
  signal.addEventListener("abort", onAbort, { once: true });
  cleanups.push(() => signal.removeEventListener("abort", onAbort));
  return {
    response: new Response(body, {
      status: 200,
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" },
    }),
    get closed() {
      return closed;
    },
    send(message) {
      if (!closed) controller?.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`));
    },
    comment(text) {
      if (!closed) controller?.enqueue(encoder.encode(`: ${text.replace(/[\r\n]/g, " ")}\n\n`));
    },
    retry(ms) {
      if (!closed) controller?.enqueue(encoder.encode(`retry: ${Math.max(0, Math.floor(ms))}\n\n`));
    },
    close,
    onClose(cleanup) {
      if (closed) cleanup();
      else cleanups.push(cleanup);
    },
  };
}

/** The request accepts an SSE answer (Streamable HTTP clients list both types; JSON-only ones do not). */
export function acceptsEventStream(headers: Headers): boolean {
  return (headers.get("accept") ?? "").toLowerCase().includes("text/event-stream");
}
