import http from "node:http";

/**
 * What the web server itself saw of a request's connection, as two headers it overwrites on every
 * request before Next (or any handler) runs: the socket's peer address and the local address it was
 * accepted on. A client cannot choose them — whatever it sent under these names is replaced — but
 * only in a process where the hook is installed (instrumentation.ts), so readers trust the headers
 * only then (peerOf returns undefined otherwise and callers fail closed).
 *
 * Why a hook: Next keeps a client-sent X-Forwarded-For unchanged when no proxy sits in front (it
 * only fills it in when absent), and route handlers never see the socket. The same hook answers
 * TRACE with 405 (FORBIDDEN_METHODS).
 */
export const PEER_HEADER = "x-runifold-peer";
export const LOCAL_HEADER = "x-runifold-local";
const INSTALLED = Symbol.for("runifold.peer-hook");

type Flagged = typeof globalThis & { [INSTALLED]?: boolean };

/**
 * Methods the Fetch standard forbids (a Request cannot be built with them) that Node's parser lets
 * through: Next turned TRACE into a 500 on every path (review F11). No route of the app takes them;
 * answered here, before Next. (TRACK is refused by Node's parser with a 400; CONNECT never reaches
 * `request`: Node emits it as `connect`.)
 */
const FORBIDDEN_METHODS = new Set(["TRACE", "TRACK"]);

function refuseMethod(res: http.ServerResponse): true {
  res.writeHead(405, {
    allow: "GET, HEAD, POST, OPTIONS",
    "content-type": "text/plain; charset=utf-8",
    "cache-control": "no-store",
  });
  res.end("Method Not Allowed");
  return true;
}

export function installPeerHook(): void {
  const flagged = globalThis as Flagged;
  if (flagged[INSTALLED]) return;
  const original = http.Server.prototype.emit;
  http.Server.prototype.emit = function emit(this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "request") {
      const req = args[0] as http.IncomingMessage;
      if (FORBIDDEN_METHODS.has(req.method ?? "")) return refuseMethod(args[1] as http.ServerResponse);
      req.headers[PEER_HEADER] = normalizeAddress(req.socket?.remoteAddress ?? "");
      req.headers[LOCAL_HEADER] = normalizeAddress(req.socket?.localAddress ?? "");
    }
    return (original as (this: http.Server, event: string | symbol, ...rest: unknown[]) => boolean).call(this, event, ...args);
  } as typeof original;
  flagged[INSTALLED] = true;
}

export function peerHookInstalled(): boolean {
  return (globalThis as Flagged)[INSTALLED] === true;
}

/** The connection as the server saw it, or undefined when this process cannot vouch for the headers. */
export function peerOf(
  headers: Headers | Record<string, string | string[] | undefined>,
): { peer: string; local: string } | undefined {
  if (!peerHookInstalled()) return undefined;
  const read = (name: string) => {
    const raw = headers instanceof Headers ? headers.get(name) : headers[name];
    return (Array.isArray(raw) ? raw[0] : raw) ?? "";
  };
  const peer = read(PEER_HEADER);
  return peer ? { peer, local: read(LOCAL_HEADER) } : undefined;
}

/** `::ffff:10.0.0.1` (an IPv4 peer on a dual-stack socket) is `10.0.0.1`. */
export function normalizeAddress(address: string): string {
  return address.startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
}

export function isLoopbackAddress(address: string): boolean {
  const a = normalizeAddress(address);
  return a === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}

/**
 * True only when this process can vouch that the request came over loopback to a loopback socket:
 * the peer and the accepting address are both loopback. What RUNIFOLD_INSECURE_LOOPBACK_TENANT
 * requires (M2), instead of trusting the HOST variable (next dev and a bare next start listen on
 * every interface whatever HOST says).
 */
export function isLoopbackRequest(request: Request): boolean {
  const seen = peerOf(request.headers);
  return seen !== undefined && isLoopbackAddress(seen.peer) && isLoopbackAddress(seen.local);
}
