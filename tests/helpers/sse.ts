/**
 * Reads an SSE response incrementally, so a test can act between events (answer a question, wake a
 * run) instead of reading the whole body at the end: `next(predicate)` waits for the first
 * not-yet-consumed event that matches; `done` resolves when the server ends the stream.
 */
// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC messages of any shape
export type SseEvent = any;

export type SseReader = {
  response: Response;
  events: SseEvent[];
  done: Promise<void>;
  next(predicate: (event: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
};

export function readSse(response: Response): SseReader {
  const events: SseEvent[] = [];
  const waiters = new Set<() => void>();
  let ended = false;
  const done = (async () => {
    for await (const event of sseMessages(response)) {
      events.push(event);
      for (const wake of waiters) wake();
    }
  })().finally(() => {
    ended = true;
    for (const wake of waiters) wake();
  });
  let consumed = 0;
  return {
    response,
    events,
    done,
    async next(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const index = events.findIndex((event, i) => i >= consumed && predicate(event));
        if (index >= 0) {
          consumed = index + 1;
          return events[index];
        }
        if (ended) throw new Error(`stream ended without a matching event: ${JSON.stringify(events)}`);
        if (Date.now() > deadline) throw new Error(`no matching event within ${timeoutMs} ms: ${JSON.stringify(events)}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(wake, Math.max(0, deadline - Date.now()));
          function wake() {
            clearTimeout(timer);
            waiters.delete(wake);
            resolve();
          }
          waiters.add(wake);
        });
      }
    },
  };
}

/**
 * The JSON-RPC messages of an SSE response as they arrive (an event's data lines joined), until the
 * stream ends; leaving the loop early cancels the body. Events without data (keep-alive comments)
 * yield nothing.
 */
export async function* sseMessages(response: Response): AsyncGenerator<SseEvent> {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (let part = await reader.read(); !part.done; part = await reader.read()) {
      buffer += part.value;
      let cut = buffer.indexOf("\n\n");
      while (cut >= 0) {
        const data = buffer
          .slice(0, cut)
          .split("\n")
          .filter((line) => line.startsWith("data: "))
          .map((line) => line.slice(6))
          .join("\n");
        buffer = buffer.slice(cut + 2);
        cut = buffer.indexOf("\n\n");
        if (data) yield JSON.parse(data);
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
