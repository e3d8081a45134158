import type { RpcMessage } from "./rpc-message";

/**
 * The JSON-RPC messages of a `text/event-stream` body, as they arrive. Events whose data is not
 * JSON are skipped; comments (`: keepalive`) are ignored. Stopping the iteration (break/return)
 * cancels the body, which closes the HTTP stream.
 */
export async function* readSse(response: Response): AsyncGenerator<RpcMessage> {
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      buffer = buffer.replace(/\r\n/g, "\n");
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const message = parseEvent(block);
        if (message) yield message;
      }
      if (done) {
        const message = parseEvent(buffer);
        if (message) yield message;
        return;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

function parseEvent(block: string): RpcMessage | undefined {
  const data = block
    .split("\n")
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(5).replace(/^ /, ""))
    .join("\n");
  if (!data) return undefined;
  try {
    const parsed = JSON.parse(data) as unknown;
    return typeof parsed === "object" && parsed !== null ? (parsed as RpcMessage) : undefined;
  } catch {
    return undefined;
  }
}
