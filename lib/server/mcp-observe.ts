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
import type { CappedBody } from "../http-api";
import { isJsonRequest, isModernMessage, jsonAnswerOf, MAX_BODY_BYTES, type McpPostHandler, readMcpBody } from "../mcp";
import { type McpEraLabel, type McpMethodLabel, type McpOutcome, mcpMethodLabel, recordMcpRequest } from "../metrics";

/** Peeked bodies past this are labelled invalid (the handler answers them 413 without parsing). */
const PEEK_LIMIT = MAX_BODY_BYTES;

/** What a peek at the body tells: the labels, and the caller's trace context from `params._meta`. */
type Peek = { era: McpEraLabel; method: McpMethodLabel; tool?: string; trace?: Record<string, string> };

/**
 * The `_meta` keys MCP reserves for W3C trace context and baggage (SEP-414, in the 2026-07-28
 * specification's "Distributed Tracing Conventions"), with the W3C size limits.
 */
const TRACE_META = { traceparent: 256, tracestate: 512, baggage: 8_192 } as const;

/**
 * POST /api/mcp with its metrics and its span, around lib/mcp's handler (which stays unaware of
 * both). The body is read once, here, under the handler's own cap (readMcpBody), peeked for the era,
 * the method and `params._meta.traceparent` (MCP's reserved key for trace context in a message,
 * SEP-414), and handed to the handler, which does not read it again; the outcome is read from the
 * answer the handler built (jsonAnswerOf), not from a copy of the response. (Cloning both streams
 * and parsing each body twice cost about a tenth of a tasks/get.) The span continues the message's
 * trace, else the active one (Next's own request span, which continued the HTTP `traceparent`
 * header), else the header itself. Runs created under the span store it (runs.trace_context), so a
 * worker's attempt and step spans join the caller's trace. With tracing off every span call is a no-op.
 */
export function observeMcpRequests(handler: McpPostHandler): (request: Request) => Promise<Response> {
  const tracer = trace.getTracer("runifold-web");
  return async function observedMcp(request: Request): Promise<Response> {
    const started = performance.now();
    const body = isJsonRequest(request) ? await readMcpBody(request) : undefined;
    const peek = peekMessage(request, body);
    const { parent, links } = parentOf(request, peek);
    const attributes: Attributes = { "mcp.method.name": peek.method, "runifold.mcp.era": peek.era };
    if (peek.tool) attributes["gen_ai.tool.name"] = peek.tool;
    const name = peek.tool ? `${peek.method} ${peek.tool}` : peek.method;
    const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes, links }, parent);
    let response: Response | undefined;
    try {
      response = await context.with(trace.setSpan(parent, span), () => handler(request, body));
      return response;
    } finally {
      const seconds = (performance.now() - started) / 1000;
      const { outcome, errorCode } = response ? outcomeOf(response) : { outcome: "server_error" as const, errorCode: undefined };
      recordMcpRequest({ era: peek.era, method: peek.method, outcome }, seconds);
      if (response) span.setAttribute("http.response.status_code", response.status);
      if (errorCode !== undefined) span.setAttribute("rpc.jsonrpc.error_code", errorCode);
      if (outcome !== "ok") span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
      span.end();
    }
  };
}

function peekMessage(request: Request, read: CappedBody | undefined): Peek {
  const invalid: Peek = { era: "unknown", method: "invalid" };
  if (read?.kind !== "ok" || read.bytes.byteLength > PEEK_LIMIT) return invalid;
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(read.bytes.buffer, read.bytes.byteOffset, read.bytes.byteLength).toString("utf8"));
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

/** The outcome by status, and for a JSON answer by its first JSON-RPC error (streams: ok). */
function outcomeOf(response: Response): Judged {
  const status = response.status;
  if (status === 401 || status === 403) return { outcome: "denied" };
  if (status >= 500) return { outcome: "server_error" };
  if (status >= 400) return { outcome: "client_error" };
  const answer = jsonAnswerOf(response);
  const messages = Array.isArray(answer) ? answer : [answer];
  const failed = messages.find((message) => isObject(message) && isObject(message.error));
  if (!failed) return { outcome: "ok" };
  const code = (failed as { error: { code?: unknown } }).error.code;
  return { outcome: "error", errorCode: typeof code === "number" ? code : undefined };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
