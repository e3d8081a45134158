import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";

/** A route handler as Next binds one: a Fetch API Request in, a Response out; `peer` is the client's address. */
export type RequestAnswer = (request: Request, peer: string | null) => Response | Promise<Response>;

export type LoopbackServer = {
  /** http://127.0.0.1:<port> */
  origin: string;
  close(): Promise<void>;
};

// Hop-by-hop framing stays with Node's server, as it does behind Next.
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding"]);

/**
 * A real node:http server on 127.0.0.1 in front of `answer`: the loopback servers of tests/helpers
 * (MCP, OAuth, the signal API) are this plus their routes, so protocol tests run over real sockets
 * without a Next build. A POST body is buffered, or with `body: "streamed"` handed over as a stream
 * the way Next hands it (a handler that caps bodies must stop reading early, which a buffered body
 * would hide). The Request's signal aborts when the client goes away.
 */
export async function serveRequests(
  answer: RequestAnswer,
  options: { port?: number; body?: "buffered" | "streamed" } = {},
): Promise<LoopbackServer> {
  let origin = "";
  const server = http.createServer(async (req, res) => {
    try {
      const body = req.method !== "POST" ? undefined : options.body === "streamed" ? Readable.toWeb(req) : await buffered(req);
      const controller = new AbortController();
      res.on("close", () => controller.abort());
      const request = new Request(`${origin}${req.url}`, {
        method: req.method,
        headers: headersOf(req),
        body: body as BodyInit | undefined,
        signal: controller.signal,
        duplex: "half",
      } as RequestInit);
      const response = await answer(request, req.socket.remoteAddress ?? null);
      res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
      if (response.body) {
        const reader = response.body.getReader();
        try {
          for (let part = await reader.read(); !part.done; part = await reader.read()) res.write(part.value);
        } catch {
          // the client went away mid-stream
        }
      }
      res.end();
    } catch (error) {
      if (res.headersSent) return void res.end();
      res.writeHead(500);
      res.end(String(error));
    }
  });
  await listen(server, options.port ?? 0);
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function buffered(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function headersOf(req: http.IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  return headers;
}

/**
 * Binds 127.0.0.1:port. A restart test asks for the port its predecessor had (clients keep the
 * URL); the kernel may not have released it the instant that process died, or another socket may
 * hold it for a moment, so EADDRINUSE is retried for a while instead of failing the test.
 */
async function listen(server: http.Server, port: number, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, "127.0.0.1", () => {
          server.off("error", reject);
          resolve();
        });
      });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE" || port === 0 || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
