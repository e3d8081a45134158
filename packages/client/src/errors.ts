/** Where a failure came from: a JSON-RPC error, an auth refusal, a bad HTTP answer, or the network. */
export type ErrorKind = "rpc" | "auth" | "http" | "transport";

/** Code used when the peer sent no JSON-RPC error code (HTTP or network failures). */
export const NO_RPC_CODE = -32000;

/**
 * A protocol or transport failure. `code` is the peer's JSON-RPC error code when there is one
 * (-32602 unknown task, -32021 missing capability, …), otherwise NO_RPC_CODE; `httpStatus` is the
 * HTTP status when a response arrived.
 */
export class McpProtocolError extends Error {
  readonly kind: ErrorKind;
  readonly code: number;
  readonly data?: unknown;
  readonly httpStatus?: number;

  constructor(params: {
    message: string;
    code?: number;
    data?: unknown;
    httpStatus?: number;
    kind?: ErrorKind;
    cause?: unknown;
  }) {
    super(params.message, params.cause === undefined ? undefined : { cause: params.cause });
    this.name = "McpProtocolError";
    this.kind = params.kind ?? "rpc";
    this.code = params.code ?? NO_RPC_CODE;
    this.data = params.data;
    this.httpStatus = params.httpStatus;
  }
}

/** 401 (no or bad API key) or 403 (origin refused, insufficient scope). */
export class McpAuthError extends McpProtocolError {
  constructor(params: { message: string; code?: number; httpStatus: number; data?: unknown }) {
    super({ ...params, kind: "auth" });
    this.name = "McpAuthError";
  }
}

/** The request never got an answer (connection refused, reset, DNS, …). */
export class McpTransportError extends McpProtocolError {
  constructor(message: string, cause?: unknown) {
    super({ message, kind: "transport", cause });
    this.name = "McpTransportError";
  }
}

export function isTaskNotFound(error: unknown): boolean {
  return error instanceof McpProtocolError && error.kind === "rpc" && error.code === -32602;
}

/**
 * A failure worth retrying with backoff: the network (no answer), or an answer saying the server
 * could not serve the request right now — HTTP 5xx (Runifold answers a store outage with 503 and
 * -32603) or 429 (a credential's slots are full; they free as streams end).
 */
export function isTransientFailure(error: unknown): boolean {
  if (!(error instanceof McpProtocolError) || error instanceof McpAuthError) return false;
  if (error.kind === "transport") return true;
  const status = error.httpStatus ?? 0;
  return status >= 500 || status === 429;
}
