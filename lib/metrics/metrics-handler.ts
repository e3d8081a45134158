import { authorizeScrape, isLoopbackScrape } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import { peerOf } from "../auth";
import { mcpFamilies } from "./mcp-metrics";
import { webRegistry } from "./registry";
import { createStoreGauges } from "./store-gauges";

export type MetricsHandlerDeps = {
  sql: () => SqlHandle;
  /** RUNIFOLD_METRICS_TOKEN; unset: loopback scrapers only. */
  token: string | undefined;
};

/**
 * GET /api/metrics: the store's gauges read now plus this process's own families, in Prometheus
 * text format. Who may scrape is one rule for web and workers (@runifold/sdk authorizeScrape): the
 * token when set, else loopback only — judged by the socket peer the server itself recorded
 * (lib/auth peer hook), never by a header a client can send; without the hook nothing is loopback.
 */
export function createMetricsHandler(deps: MetricsHandlerDeps): (request: Request) => Promise<Response> {
  const store = createStoreGauges(deps.sql);
  mcpFamilies();
  return async function handleMetrics(request: Request): Promise<Response> {
    const seen = peerOf(request.headers);
    const verdict = authorizeScrape({
      token: deps.token,
      authorization: request.headers.get("authorization"),
      fromLoopback: isLoopbackScrape({ peer: seen?.peer, local: seen?.local, header: (name) => request.headers.get(name) }),
    });
    if (!verdict.ok) {
      const headers: Record<string, string> = { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" };
      if (verdict.status === 401) headers["www-authenticate"] = 'Bearer realm="runifold-metrics"';
      return new Response(`${verdict.message}\n`, { status: verdict.status, headers });
    }
    await store.refresh();
    const registry = webRegistry();
    return new Response(await registry.metrics(), {
      headers: { "content-type": registry.contentType, "cache-control": "no-store" },
    });
  };
}
