import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Server } from "node:net";

/**
 * The MCP client's own web endpoints, as a desktop client runs them on loopback (RFC 8252): the
 * redirect URI the browser is sent to with the authorization code, and (CIMD) the https URL its
 * client metadata document is served from.
 */
export type CallbackServer = {
  redirectUrl: string;
  /** Resolves with the query of the next request to /callback (code and state, or error). */
  nextCallback(): Promise<URLSearchParams>;
  close(): Promise<void>;
};

export async function startCallbackServer(): Promise<CallbackServer> {
  const waiting: ((query: URLSearchParams) => void)[] = [];
  const arrived: URLSearchParams[] = [];
  const server = createHttpServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") return notFound(response);
    const next = waiting.shift();
    if (next) next(url.searchParams);
    else arrived.push(url.searchParams);
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end("<!doctype html><title>Connected</title><h1>You can close this window</h1>");
  });
  const port = await listen(server);
  return {
    redirectUrl: `http://127.0.0.1:${port}/callback`,
    nextCallback: () => {
      const ready = arrived.shift();
      return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    },
    close: () => close(server),
  };
}

export type MetadataServer = {
  /** The document's URL, which is also the client_id (CIMD). */
  url: string;
  /** How often the authorization server fetched it. */
  fetches: number;
  close(): Promise<void>;
};

/** Serves `document(url)` at https://127.0.0.1:<port>/oauth/client.json with the given key and certificate. */
export async function startMetadataServer(
  tls: { key: Buffer; cert: Buffer },
  document: (url: string) => Record<string, unknown>,
): Promise<MetadataServer> {
  let url = "";
  const state: MetadataServer = { url, fetches: 0, close: async () => {} };
  const server = createHttpsServer(tls, (request: IncomingMessage, response: ServerResponse) => {
    if (request.url !== "/oauth/client.json") return notFound(response);
    state.fetches++;
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(document(url)));
  });
  const port = await listen(server);
  url = `https://127.0.0.1:${port}/oauth/client.json`;
  state.url = url;
  state.close = () => close(server);
  return state;
}

function notFound(response: ServerResponse) {
  response.writeHead(404);
  response.end();
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
  });
}

function close(server: Server & { closeAllConnections(): void }): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
