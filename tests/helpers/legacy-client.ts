import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type ElicitRequest, ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { legacyPost } from "./mcp-envelope";
import { readSse, type SseReader } from "./sse";

/**
 * The official SDK v1 client (2025-11-25 experimental tasks) over real HTTP, authenticated with a
 * Bearer key. With several URLs, every fetch goes to the next one (a round-robin load balancer).
 */
export async function connectLegacyClient(
  urls: string | string[],
  token: string,
  options: {
    onElicit?: (request: ElicitRequest) => ElicitResult | Promise<ElicitResult>;
    name?: string;
    /** What the client declares (default: form elicitation when it answers elicitations, else nothing). */
    capabilities?: Record<string, unknown>;
  } = {},
): Promise<{ client: Client; log: { target: string; method: string; message: unknown }[]; close(): Promise<void> }> {
  const targets = Array.isArray(urls) ? urls : [urls];
  const log: { target: string; method: string; message: unknown }[] = [];
  let next = 0;
  const roundRobin = (input: string | URL | Request, init?: RequestInit) => {
    const target = targets[next++ % targets.length] as string;
    const message = typeof init?.body === "string" ? JSON.parse(init.body) : undefined;
    log.push({ target, method: init?.method ?? "GET", message });
    const url = new URL(typeof input === "string" || input instanceof URL ? input.toString() : input.url);
    return fetch(new URL(url.pathname + url.search, target), init);
  };
  const transport = new StreamableHTTPClientTransport(new URL(targets[0] as string), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: roundRobin,
  });
  const client = new Client(
    { name: options.name ?? "runifold-legacy-tests", version: "1.0.0" },
    { capabilities: options.capabilities ?? (options.onElicit ? { elicitation: { form: {} } } : {}) },
  );
  if (options.onElicit) {
    const onElicit = options.onElicit;
    client.setRequestHandler(ElicitRequestSchema, async (request) => onElicit(request));
  }
  await client.connect(transport);
  return { client, log, close: () => client.close() };
}

// biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON-RPC bodies
export type LegacyRawResponse = { status: number; body: any; events: any[]; headers: Headers };

let rawId = 1;

/** A raw 2025-11-25 JSON-RPC poster (no SDK; framed by mcp-envelope.ts), for exact wire checks. SSE bodies are split into `events`. */
type RawExtra = { version?: string | null; accept?: string; headers?: Record<string, string> };

export function legacyRaw(url: string, token: string, defaults: RawExtra = {}) {
  async function post(body: unknown, extra: RawExtra = {}): Promise<LegacyRawResponse> {
    const version = extra.version !== undefined ? extra.version : defaults.version;
    const accept = extra.accept ?? defaults.accept;
    const headers = { ...defaults.headers, ...extra.headers };
    const response = await fetch(url, legacyPost(body, { token, version, accept, headers }));
    const text = await response.text();
    const events = (response.headers.get("content-type") ?? "").includes("text/event-stream")
      ? text
          .split("\n")
          .filter((line) => line.startsWith("data: "))
          .map((line) => JSON.parse(line.slice(6)))
      : [];
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // SSE: see events
    }
    return { status: response.status, body: events.length > 0 ? events.at(-1) : parsed, events, headers: response.headers };
  }
  return {
    post,
    request(method: string, params: Record<string, unknown> = {}, extra: RawExtra = {}) {
      return post({ jsonrpc: "2.0", id: rawId++, method, params }, extra);
    },
  };
}

/** Opens a POST whose answer is an SSE stream and reads it incrementally (tests/helpers/sse.ts). */
export async function legacyStream(
  url: string,
  token: string,
  body: unknown,
  version = "2025-11-25",
  headers: Record<string, string> = {},
): Promise<SseReader> {
  const response = await fetch(url, legacyPost(body, { token, version, headers }));
  return readSse(response);
}

/**
 * `initialize` over raw JSON-RPC declaring `capabilities`; resolves to the Mcp-Session-Id the
 * server minted, as headers to send with later requests of that session.
 */
export async function legacySession(
  url: string,
  token: string,
  capabilities: Record<string, unknown>,
  protocolVersion = "2025-11-25",
): Promise<{ "mcp-session-id": string }> {
  const init = await legacyRaw(url, token, { version: null }).request("initialize", {
    protocolVersion,
    capabilities,
    clientInfo: { name: "raw-session", version: "1" },
  });
  const id = init.headers.get("mcp-session-id");
  if (init.status !== 200 || !id) throw new Error(`initialize minted no session: ${init.status} ${JSON.stringify(init.body)}`);
  return { "mcp-session-id": id };
}
