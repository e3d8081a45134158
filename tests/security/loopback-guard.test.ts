import http from "node:http";
import net, { type AddressInfo } from "node:net";
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

describe("methods the Fetch standard forbids (review F11)", () => {
  it("with the hook, TRACE is answered 405 before any handler (Next turned it into a 500); TRACK never gets past Node's parser", async () => {
    installPeerHook();
    let handled = 0;
    const server = http.createServer((_req, res) => {
      handled++;
      res.end("ok");
    });
    server.on("clientError", (_error, socket) => socket.end("HTTP/1.1 400 Bad Request\r\n\r\n"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    // A raw request line, as curl -X TRACE sends it (Node's own client adds a body to TRACE).
    const send = (method: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, "127.0.0.1", () => socket.write(`${method} /login HTTP/1.1\r\nHost: x\r\n\r\n`));
        socket.once("data", (data) => {
          resolve(data.toString().split("\r\n").slice(0, 3).join("|"));
          socket.destroy();
        });
        socket.on("error", reject);
      });
    try {
      expect(await send("TRACE")).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\|.*allow: GET, HEAD, POST, OPTIONS/i);
      expect(await send("TRACK")).toMatch(/^HTTP\/1\.1 400/);
      expect(handled).toBe(0);
      expect(await send("GET")).toMatch(/^HTTP\/1\.1 200/);
      expect(handled).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
