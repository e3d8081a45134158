import http from "node:http";
import type { AddressInfo } from "node:net";

export type ReceivedWebhook = {
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body, exactly as signed. */
  body: string;
  json: Record<string, unknown>;
  /** When it arrived (this process's clock, ms). */
  at: number;
};

/**
 * A real HTTP server standing in for a team's webhook endpoint. Each path answers with the status
 * codes queued for it (`script("/flaky", [500, 500])`), then 200; everything received is kept.
 */
export async function startWebhookReceiver() {
  const received: ReceivedWebhook[] = [];
  const scripts = new Map<string, number[]>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const path = request.url ?? "/";
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(body) as Record<string, unknown>;
      } catch {}
      received.push({ path, headers: request.headers, body, json, at: Date.now() });
      const status = scripts.get(path)?.shift() ?? 200;
      response.writeHead(status, { "content-type": "text/plain" }).end(status >= 400 ? `answer ${status}` : "ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    script(path: string, statuses: number[]) {
      scripts.set(path, [...statuses]);
    },
    at(path: string): ReceivedWebhook[] {
      return received.filter((entry) => entry.path === path);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
