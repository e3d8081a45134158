import http from "node:http";
import { cancelRun } from "@runifold/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SignalFixture, startSignalFixture } from "./signal-fixture";

let fx: SignalFixture;
beforeAll(async () => {
  fx = await startSignalFixture();
});
afterAll(async () => {
  await fx?.close();
});

const LIMIT = 65_536;
const post = (url: string, options: { key?: string; body?: BodyInit; headers?: Record<string, string> } = {}) =>
  fetch(url, {
    method: "POST",
    headers: {
      // What a JSON client sends (fetch alone would label a string body text/plain).
      ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
      ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
      ...options.headers,
    },
    body: options.body,
    ...(options.body instanceof ReadableStream ? { duplex: "half" } : {}),
  } as RequestInit);
/** A JSON string literal of exactly `bytes` bytes (quotes included). */
const jsonStringOf = (bytes: number) => JSON.stringify("x".repeat(bytes - 2));

const ENDLESS_GIVE_UP_BYTES = 32 * 1_048_576;

/**
 * A chunked body of up to 32 MiB, written only as fast as the server reads it: a server that caps
 * while reading answers long before the end (`sentBeforeAnswer`); one that buffers answers after it.
 */
function postEndless(url: string, key: string): Promise<{ status: number; body: string; sentBeforeAnswer: number }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: "POST", headers: { authorization: `Bearer ${key}` } });
    const chunk = Buffer.alloc(16_384, 0x20); // JSON whitespace: a server without a cap would wait for the end
    let answered = false;
    let sent = 0;
    const pump = () => {
      while (!answered && sent < ENDLESS_GIVE_UP_BYTES) {
        sent += chunk.length;
        if (!request.write(chunk)) return void request.once("drain", pump);
      }
      // A server that never answered mid-body gets an end after all, and its answer fails the test.
      if (!answered) request.end();
    };
    request.on("response", (response) => {
      answered = true;
      const sentBeforeAnswer = sent;
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (part) => {
        body += part;
      });
      response.on("end", () => {
        request.destroy();
        resolve({ status: response.statusCode ?? 0, body, sentBeforeAnswer });
      });
    });
    request.on("error", (error) => {
      if (!answered) reject(error);
    });
    pump();
  });
}

describe("POST /api/v1/tasks/{id}/signals/{name}", { timeout: 60_000 }, () => {
  it("delivers the payload to a waiting workflow, which completes with it (202, no-store)", async () => {
    const taskId = await fx.startRun(fx.tenantA);
    const response = await post(fx.signalUrl(taskId, "approved"), {
      key: fx.keyA,
      body: JSON.stringify({ by: "ops", amount: 42 }),
      headers: { "content-type": "application/json" },
    });
    expect(response.status).toBe(202);
    expect(response.headers.get("cache-control")).toBe("no-store, no-transform");
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toEqual({ taskId, signal: "approved", accepted: true });
    expect(await fx.waitForStatus(taskId, fx.tenantA, ["completed", "failed", "cancelled"])).toBe("completed");
    expect(await fx.resultPayload(taskId, fx.tenantA)).toEqual({ by: "ops", amount: 42 });
  });

  it("an empty body is a null payload; a signal sent before the wait is kept until it waits", async () => {
    const waiting = await fx.startRun(fx.tenantA);
    expect((await post(fx.signalUrl(waiting, "approved"), { key: fx.keyA })).status).toBe(202);
    expect(await fx.waitForStatus(waiting, fx.tenantA, ["completed", "failed"])).toBe("completed");
    expect(await fx.resultPayload(waiting, fx.tenantA)).toBeNull();

    const early = await fx.startRun(fx.tenantA, { park: false });
    expect((await post(fx.signalUrl(early, "approved"), { key: fx.keyA, body: '"early"' })).status).toBe(202);
    expect(await fx.waitForStatus(early, fx.tenantA, ["completed", "failed"])).toBe("completed");
    expect(await fx.resultPayload(early, fx.tenantA)).toBe("early");
  });

  it("answers another tenant's task, an unknown, a malformed ID and an expired handle with byte-identical 404s", async () => {
    const foreign = await fx.startRun(fx.tenantB);
    const expired = await fx.startRun(fx.tenantA, { ttlMs: 60_000 });
    await fx.db.sql`UPDATE runs SET created_at = now() - interval '1 hour' WHERE id = ${expired}`;
    const ids = [foreign, "9b2f6c7e-0000-4000-8000-000000000000", "not-a-uuid", expired];
    const answers = await Promise.all(
      ids.map(async (id) => {
        const response = await post(fx.signalUrl(id, "approved"), { key: fx.keyA, body: '{"x":1}' });
        return {
          status: response.status,
          body: await response.text(),
          type: response.headers.get("content-type"),
          cache: response.headers.get("cache-control"),
        };
      }),
    );
    expect(answers[0]).toEqual({
      status: 404,
      body: '{"error":"not_found","message":"Task not found"}',
      type: "application/json",
      cache: "no-store, no-transform",
    });
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    expect(await fx.signalCount(foreign)).toBe(0);
    expect(await fx.signalCount(expired)).toBe(0);
    // The owner still reaches its task: the 404 above was the tenant boundary, not a broken task.
    expect((await post(fx.signalUrl(foreign, "approved"), { key: fx.keyB })).status).toBe(202);
  });

  it("401 with WWW-Authenticate: Bearer for a missing or unusable key; 403 insufficient_scope without tasks:write", async () => {
    const taskId = await fx.startRun(fx.tenantA);
    const missing = await post(fx.signalUrl(taskId, "approved"), { body: "1" });
    const bogus = await post(fx.signalUrl(taskId, "approved"), { key: `rf_${"0".repeat(16)}_${"A".repeat(43)}`, body: "1" });
    for (const response of [missing, bogus]) {
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer /);
    }
    const missingBody = await missing.text();
    expect(JSON.parse(missingBody)).toMatchObject({ error: "invalid_token" });
    expect(await bogus.text()).toBe(missingBody);

    const readOnly = await post(fx.signalUrl(taskId, "approved"), { key: fx.readOnlyKeyA, body: "1" });
    expect(readOnly.status).toBe(403);
    expect(readOnly.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    expect(readOnly.headers.get("www-authenticate")).toContain('scope="tasks:write"');
    expect(await readOnly.json()).toMatchObject({ error: "insufficient_scope" });
    expect(await fx.signalCount(taskId)).toBe(0);
  });

  it("400 for a bad signal name, a body that is not JSON and a payload Postgres cannot store", async () => {
    const taskId = await fx.startRun(fx.tenantA);
    const badNames = ["has space", "slash/inside", "x".repeat(129), "ünicode"];
    for (const name of badNames) {
      const response = await post(fx.signalUrl(taskId, name), { key: fx.keyA, body: "1" });
      expect(response.status, name).toBe(400);
      expect(await response.json()).toMatchObject({ error: "invalid_signal_name" });
    }
    for (const body of [
      "{not json",
      '{"a":1} trailing',
      String.raw`{"nul":"\u0000"}`,
      String.raw`"\ud800"`,
      "[".repeat(80) + "]".repeat(80),
    ]) {
      const response = await post(fx.signalUrl(taskId, "approved"), { key: fx.keyA, body });
      expect(response.status, body.slice(0, 20)).toBe(400);
      expect(await response.json()).toMatchObject({ error: "invalid_payload" });
    }
    expect(await fx.signalCount(taskId)).toBe(0);
    // The longest name and every allowed character are accepted.
    const longest = `a.b:c-d_E9${"z".repeat(118)}`;
    expect((await post(fx.signalUrl(taskId, longest), { key: fx.keyA })).status).toBe(202);
  });

  it("413 above 64 KiB: declared by Content-Length, chunked without one, and a 32 MiB stream answered mid-body", async () => {
    const taskId = await fx.startRun(fx.tenantA);
    const declared = await post(fx.signalUrl(taskId, "approved"), { key: fx.keyA, body: jsonStringOf(LIMIT + 1) });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({ error: "payload_too_large" });

    const oversized = new TextEncoder().encode(jsonStringOf(LIMIT + 4_096));
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < oversized.length; offset += 8_192)
          controller.enqueue(oversized.slice(offset, offset + 8_192));
        controller.close();
      },
    });
    const streamed = await post(fx.signalUrl(taskId, "approved"), { key: fx.keyA, body: chunked });
    expect(streamed.status).toBe(413);

    const endless = await postEndless(fx.signalUrl(taskId, "approved"), fx.keyA);
    expect(endless.status).toBe(413);
    expect(JSON.parse(endless.body)).toMatchObject({ error: "payload_too_large" });
    expect(endless.sentBeforeAnswer).toBeLessThan(ENDLESS_GIVE_UP_BYTES);
    expect(await fx.signalCount(taskId)).toBe(0);

    // Exactly at the limit is accepted, and the workflow gets all of it.
    const atLimit = await post(fx.signalUrl(taskId, "approved"), { key: fx.keyA, body: jsonStringOf(LIMIT) });
    expect(atLimit.status).toBe(202);
    expect(await fx.waitForStatus(taskId, fx.tenantA, ["completed", "failed"])).toBe("completed");
    expect(await fx.resultPayload(taskId, fx.tenantA)).toBe(JSON.parse(jsonStringOf(LIMIT)));
  });

  it("415 for a body that is not declared application/json (text/plain, a form, none); an empty body needs no type (review F14)", async () => {
    const taskId = await fx.startRun(fx.tenantA);
    for (const type of [
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/jsonx",
    ]) {
      const response = await post(fx.signalUrl(taskId, "approved"), {
        key: fx.keyA,
        body: '{"x":1}',
        headers: { "content-type": type },
      });
      expect([type, response.status]).toEqual([type, 415]);
      expect(await response.json()).toMatchObject({ error: "unsupported_media_type" });
    }
    const untyped = await fetch(fx.signalUrl(taskId, "approved"), {
      method: "POST",
      headers: { authorization: `Bearer ${fx.keyA}` },
      body: new Blob(['{"x":1}']),
    });
    expect(untyped.status).toBe(415);
    expect(await fx.db.sql`SELECT 1 FROM run_signals WHERE run_id = ${taskId}`).toHaveLength(0);
    const charset = await post(fx.signalUrl(taskId, "approved"), {
      key: fx.keyA,
      body: '{"x":1}',
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(charset.status).toBe(202);
  });

  it("409 for a terminal task (completed or cancelled): nothing is stored", async () => {
    const completed = await fx.startRun(fx.tenantA);
    await post(fx.signalUrl(completed, "approved"), { key: fx.keyA, body: "1" });
    await fx.waitForStatus(completed, fx.tenantA, ["completed"]);
    const cancelled = await fx.startRun(fx.tenantA);
    await cancelRun(fx.db.sql, { runId: cancelled, tenantId: fx.tenantA, reason: "test", actor: "test" });
    await fx.waitForStatus(cancelled, fx.tenantA, ["cancelled"]);
    for (const [taskId, status] of [
      [completed, "completed"],
      [cancelled, "cancelled"],
    ] as const) {
      const before = await fx.signalCount(taskId);
      const response = await post(fx.signalUrl(taskId, "approved"), { key: fx.keyA, body: "2" });
      expect(response.status).toBe(409);
      expect(await response.json()).toEqual({
        error: "task_terminal",
        message: `Task is ${status}: a finished task takes no signals`,
        status,
      });
      expect(await fx.signalCount(taskId)).toBe(before);
    }
  });
});
