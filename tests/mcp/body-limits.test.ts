import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpHandler, MAX_BODY_BYTES } from "../../lib/mcp";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { mcpHandlerDeps } from "../helpers/mcp-server";

// The body cap holds for bodies that arrive in chunks (no Content-Length): the handler stops reading
// at the cap instead of buffering the whole body first (review M3). Driven through the handler
// itself, since a test HTTP server that buffers requests would hide the difference.

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let token: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  token = (await seedDemo(sql)).apiKey as string;
});
afterAll(async () => {
  await db.drop();
});

describe("POST /api/mcp body limit", () => {
  it("answers 413 to a 64 MiB chunked body having pulled only a bounded part of it", async () => {
    const handle = createMcpHandler(mcpHandlerDeps(sql));
    let pulled = 0;
    const chunk = new Uint8Array(65_536).fill(32);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += chunk.byteLength;
        controller.enqueue(chunk);
        if (pulled >= 64 * 1_048_576) controller.close();
      },
    });
    const request = new Request("http://127.0.0.1/api/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body,
      duplex: "half",
    } as RequestInit);
    const response = await handle(request);
    expect(response.status).toBe(413);
    // The cap plus the bounded drain that lets the 413 reach the client (lib/http-api/read-capped-body.ts).
    expect(pulled).toBeLessThan(8 * 1_048_576);
    expect(pulled).toBeGreaterThan(MAX_BODY_BYTES);
  });
});
