import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { describe, expect, it } from "vitest";
import { installPeerHook, isLoopbackRequest } from "../../lib/auth";

/** A server answering whether the request it got is a loopback request, as the MCP gate asks. */
async function probe(listenHost: string, connectHost: string, headers: Record<string, string> = {}): Promise<boolean> {
  const server = http.createServer((req, res) => {
    const request = new Request(`http://x${req.url}`, { headers: req.headers as Record<string, string> });
    res.end(String(isLoopbackRequest(request)));
  });
  await new Promise<void>((resolve) => server.listen(0, listenHost, resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const response = await fetch(`http://${connectHost.includes(":") ? `[${connectHost}]` : connectHost}:${port}/`, { headers });
    return (await response.text()) === "true";
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const lan = Object.values(os.networkInterfaces())
  .flat()
  .find((i) => i && i.family === "IPv4" && !i.internal)?.address;

describe("the loopback test tenant is bound to loopback for real (M2)", () => {
  it("without the hook, forged connection headers count for nothing", async () => {
    expect(await probe("127.0.0.1", "127.0.0.1", { "x-runifold-peer": "127.0.0.1", "x-runifold-local": "127.0.0.1" })).toBe(
      false,
    );
  });

  it("with the hook, a loopback connection passes and forged headers are overwritten", async () => {
    installPeerHook();
    expect(await probe("127.0.0.1", "127.0.0.1")).toBe(true);
    if (lan) expect(await probe("0.0.0.0", lan, { "x-runifold-peer": "127.0.0.1", "x-runifold-local": "127.0.0.1" })).toBe(false);
  });
});
