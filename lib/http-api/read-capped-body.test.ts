import { describe, expect, it } from "vitest";
import { readCappedBody } from "./read-capped-body";

const CAP = 1_024;

/** A body of `chunks` chunks of `size` bytes (Infinity: it never ends), counting what was pulled. */
function streamed(size: number, chunks: number, headers: Record<string, string> = {}) {
  const pulled = { chunks: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled.chunks >= chunks) return controller.close();
      pulled.chunks++;
      controller.enqueue(new Uint8Array(size).fill(0x61));
    },
  });
  const request = new Request("http://x/", { method: "POST", body, headers, duplex: "half" } as RequestInit);
  return { request, pulled };
}

describe("readCappedBody", () => {
  it("joins a chunked body up to the cap exactly", async () => {
    const { request } = streamed(256, 4);
    const body = await readCappedBody(request, CAP);
    expect(body.kind).toBe("ok");
    expect(body.kind === "ok" && body.bytes.byteLength).toBe(CAP);
  });

  it("stops at the first byte over the cap, even for a body that never ends", async () => {
    const { request, pulled } = streamed(100, Number.POSITIVE_INFINITY);
    expect(await readCappedBody(request, CAP)).toEqual({ kind: "too_large" });
    // 11 chunks cross the cap; the rest is discarded in the background (bounded), never kept.
    expect(pulled.chunks).toBeGreaterThanOrEqual(11);
  });

  it("refuses a declared Content-Length over the cap before reading, and an empty body is empty", async () => {
    const declared = new Request("http://x/", { method: "POST", body: "x".repeat(CAP + 1) });
    expect(await readCappedBody(declared, CAP)).toEqual({ kind: "too_large" });
    const empty = await readCappedBody(new Request("http://x/", { method: "POST" }), CAP);
    expect(empty).toEqual({ kind: "ok", bytes: new Uint8Array() });
  });

  it("reports a body that breaks mid-stream as unreadable", async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(10));
        controller.error(new Error("client went away"));
      },
    });
    const request = new Request("http://x/", { method: "POST", body, duplex: "half" } as RequestInit);
    expect(await readCappedBody(request, CAP)).toEqual({ kind: "unreadable" });
  });
});
