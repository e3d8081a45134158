import {
  type Attributes,
  type Context,
  context,
  type Link,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { isModernMessage } from "../mcp";
import { type McpEraLabel, type McpMethodLabel, type McpOutcome, mcpMethodLabel, recordMcpRequest } from "../metrics";

type Handler = (request: Request) => Promise<Response>;

/** What a peek at the body tells: the labels, and the caller's trace context from `params._meta`. */
type Peek = { era: McpEraLabel; method: McpMethodLabel; tool?: string; trace?: Record<string, string> };

/**
 * The `_meta` keys MCP reserves for W3C trace context and baggage (SEP-414, in the 2026-07-28
 * specification's "Distributed Tracing Conventions"), with the W3C size limits.
 */
const TRACE_META = { traceparent: 256, tracestate: 512, baggage: 8_192 } as const;

/** The MCP handler refuses bodies over 1 MiB unread (413); the peek reads no more than that either. */
const PEEK_LIMIT = 1_048_576;

/**
 * POST /api/mcp with its metrics and its span, around lib/mcp's handler (which stays unaware of
 * both). A copy of the body is parsed once more for the era, the method and `params._meta.traceparent`
 * (MCP's reserved key for trace context in a message, SEP-414); the span continues that trace, else the
 * active one (Next's own request span, which continued the HTTP `traceparent` header), else the
 * header itself. Runs created under the span store it (runs.trace_context), so a worker's attempt
 * and step spans join the caller's trace. With tracing off every span call is a no-op.
 */
export function observeMcpRequests(handler: Handler): Handler {
  const tracer = trace.getTracer("runifold-web");
  return async function observedMcp(request: Request): Promise<Response> {
    const started = performance.now();
    const peek = await peekMessage(request);
    const { parent, links } = parentOf(request, peek);
    const attributes: Attributes = { "mcp.method.name": peek.method, "runifold.mcp.era": peek.era };
    if (peek.tool) attributes["gen_ai.tool.name"] = peek.tool;
    const name = peek.tool ? `${peek.method} ${peek.tool}` : peek.method;
    const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes, links }, parent);
    let response: Response | undefined;
    try {
      response = await context.with(trace.setSpan(parent, span), () => handler(request));
      return response;
    } finally {
      const seconds = (performance.now() - started) / 1000;
      // Cloned now, before the server starts reading the body; judged after the response is on its way.
      const judged = response
        ? outcomeOf(response.status, jsonCopy(response))
        : Promise.resolve<Judged>({ outcome: "server_error" });
      void judged.then(({ outcome, errorCode }) => {
        recordMcpRequest({ era: peek.era, method: peek.method, outcome }, seconds);
        if (response) span.setAttribute("http.response.status_code", response.status);
        if (errorCode !== undefined) span.setAttribute("rpc.jsonrpc.error_code", errorCode);
        if (outcome !== "ok") span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
        span.end();
      });
    }
  };
}

async function peekMessage(request: Request): Promise<Peek> {
  const invalid: Peek = { era: "unknown", method: "invalid" };
  if (!(request.headers.get("content-type") ?? "").toLowerCase().startsWith("application/json")) return invalid;
  if (Number(request.headers.get("content-length") ?? "0") > PEEK_LIMIT || !request.body) return invalid;
  let body: unknown;
  try {
    const text = await readCapped(request.clone(), PEEK_LIMIT);
    if (text === undefined) return invalid;
    body = JSON.parse(text);
  } catch {
    return invalid;
  }
  if (Array.isArray(body)) return { era: "legacy", method: "batch" };
  if (!isObject(body)) return invalid;
  const era = isModernMessage(body, request.headers) ? "modern" : "legacy";
  const isResponse = body.method === undefined && ("result" in body || "error" in body);
  const method = isResponse ? "response" : mcpMethodLabel(body.method);
  const params = isObject(body.params) ? body.params : {};
  const meta = isObject(params._meta) ? params._meta : {};
  const peek: Peek = { era, method };
  // A tool name is a route's, so bounded per tenant; only used as a span attribute, never a metric label.
  if (method === "tools/call" && typeof params.name === "string" && params.name.length <= 128) peek.tool = params.name;
  if (typeof meta.traceparent === "string") {
    const trace: Record<string, string> = {};
    for (const [key, limit] of Object.entries(TRACE_META)) {
      const value = meta[key];
      if (typeof value === "string" && value.length <= limit) trace[key] = value;
    }
    peek.trace = trace;
  }
  return peek;
}

async function readCapped(request: Request, limit: number): Promise<string | undefined> {
  const reader = request.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let part = await reader.read(); !part.done; part = await reader.read()) {
    size += part.value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(part.value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parentOf(request: Request, peek: Peek): { parent: Context; links: Link[] } {
  const active = context.active();
  const activeSpan = trace.getSpan(active);
  if (peek.trace) {
    const parent = propagation.extract(ROOT_CONTEXT, peek.trace);
    if (trace.getSpan(parent)) return { parent, links: activeSpan ? [{ context: activeSpan.spanContext() }] : [] };
  }
  if (activeSpan) return { parent: active, links: [] };
  return { parent: propagation.extract(active, request.headers, HEADERS_GETTER), links: [] };
}

const HEADERS_GETTER = {
  get: (carrier: Headers, key: string) => carrier.get(key) ?? undefined,
  keys: (carrier: Headers) => [...carrier.keys()],
};

type Judged = { outcome: McpOutcome; errorCode?: number };

function jsonCopy(response: Response): Response | undefined {
  const type = (response.headers.get("content-type") ?? "").toLowerCase();
  if (!type.startsWith("application/json") || !response.body || response.bodyUsed) return undefined;
  return response.clone();
}

async function outcomeOf(status: number, copy: Response | undefined): Promise<Judged> {
  if (status === 401 || status === 403) {
    await copy?.body?.cancel();
    return { outcome: "denied" };
  }
  if (status >= 500) {
    await copy?.body?.cancel();
    return { outcome: "server_error" };
  }
  if (status >= 400) {
    await copy?.body?.cancel();
    return { outcome: "client_error" };
  }
  if (!copy) return { outcome: "ok" };
  try {
    const body: unknown = JSON.parse(await copy.text());
    const messages = Array.isArray(body) ? body : [body];
    const failed = messages.find((message) => isObject(message) && isObject(message.error));
    if (!failed) return { outcome: "ok" };
    const code = (failed as { error: { code?: unknown } }).error.code;
    return { outcome: "error", errorCode: typeof code === "number" ? code : undefined };
  } catch {
    return { outcome: "ok" };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
