import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";
import type { Logger } from "../logger";
import { authorizeScrape, isLoopbackScrape } from "./scrape-auth";

export type MetricsServer = { readonly port: number; close(): Promise<void> };

/**
 * A worker's metrics endpoint: `GET /metrics` (Prometheus text format) on its own small HTTP server,
 * under the same scrape rule as the web's /api/metrics (scrape-auth.ts). The peer is the socket's
 * own, so nothing a client sends can make it look local.
 */
export async function serveMetrics(params: {
  registry: Registry;
  port: number;
  host: string;
  token?: string;
  logger: Logger;
}): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/metrics") return send(res, 404, "not found: the metrics are at /metrics\n");
    if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, "use GET\n", { allow: "GET, HEAD" });
    const header = (name: string) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(",") : value;
    };
    const verdict = authorizeScrape({
      token: params.token,
      authorization: header("authorization"),
      fromLoopback: isLoopbackScrape({ peer: req.socket.remoteAddress, local: req.socket.localAddress, header }),
    });
    if (!verdict.ok) {
      const challenge = verdict.status === 401 ? { "www-authenticate": 'Bearer realm="runifold-metrics"' } : undefined;
      return send(res, verdict.status, `${verdict.message}\n`, challenge);
    }
    params.registry.metrics().then(
      (text) => send(res, 200, req.method === "HEAD" ? "" : text, { "content-type": params.registry.contentType }),
      (error: unknown) => {
        params.logger.warn("metrics collection failed", { error: String(error) });
        send(res, 500, "metrics collection failed\n");
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(params.port, params.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(res: http.ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", ...headers });
  res.end(body);
}
