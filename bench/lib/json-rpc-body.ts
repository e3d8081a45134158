// A JSON-RPC answer read from a Streamable HTTP response in either form the transport allows: a JSON
// body, or an SSE stream whose `data:` lines carry the messages (the official SDK's server answers
// this way unless told otherwise). Returns the first message carrying a result or an error.

export type JsonRpcAnswer = { result?: Record<string, unknown>; error?: { code: number; message: string } };

export async function jsonRpcAnswer(response: Response): Promise<JsonRpcAnswer> {
  const text = await response.text();
  const type = response.headers.get("content-type") ?? "";
  if (!type.includes("text/event-stream")) {
    try {
      return JSON.parse(text) as JsonRpcAnswer;
    } catch {
      throw new Error(`not a JSON-RPC answer (${response.status}, ${type || "no content-type"}): ${text.slice(0, 300)}`);
    }
  }
  for (const line of text.split("\n")) {
    // Priming events (an event ID with empty data, for resumability) carry no message.
    const data = line.startsWith("data:") ? line.slice(5).trim() : "";
    if (!data) continue;
    const message = JSON.parse(data) as JsonRpcAnswer;
    if (message.result !== undefined || message.error !== undefined) return message;
  }
  throw new Error(`no JSON-RPC answer in the event stream (${response.status}): ${text.slice(0, 300)}`);
}
