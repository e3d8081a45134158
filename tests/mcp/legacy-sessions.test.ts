import { createHash } from "node:crypto";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTenantBySlug } from "../../db/queries/tenants";
import { createApiKey } from "../../lib/auth";
import { answerPendingInput } from "../../lib/tasks";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { legacyRaw, legacySession, legacyStream } from "../helpers/legacy-client";
import { startMcpTestServer } from "../helpers/mcp-server";
import { modernClient } from "../helpers/modern-client";
import { waitForRunStatus } from "../helpers/runs";

/**
 * Legacy sessions (2025-11-25 basic/transports.mdx "Session Management") and capability gating
 * (client/elicitation.mdx: servers MUST NOT send what the client did not declare), over real HTTP.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let token: string;
let otherKey: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  token = (await seedDemo(sql)).apiKey as string;
  const acme = await findTenantBySlug(sql, "tenant-acme");
  otherKey = (await createApiKey(sql, { tenantId: acme?.id as string, name: "other" })).token;
  server = await startMcpTestServer(sql);
});
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");
const keyIdOf = (t: string) => /^rf_([0-9a-f]{16})_/.exec(t)?.[1];
const del = (headers: Record<string, string>, bearer = token) =>
  fetch(server.url, { method: "DELETE", headers: { authorization: `Bearer ${bearer}`, ...headers } });

describe("legacy sessions", () => {
  it("initialize stores what the client declared under the ID's digest, bound to the key", async () => {
    const capabilities = { elicitation: { form: {}, url: {} }, roots: {} };
    const session = await legacySession(server.url, token, capabilities);
    const id = session["mcp-session-id"];
    const rows = await sql`SELECT * FROM mcp_sessions WHERE id_sha256 = ${sha256(id)}`;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ key_id: keyIdOf(token), protocol_version: "2025-11-25", client_capabilities: capabilities });
    expect(rows[0]?.client_info).toEqual({ name: "raw-session", version: "1" });
    // About a day of idle lifetime, and the raw ID is nowhere in the store.
    const row = rows[0] as { expires_at: Date; created_at: Date };
    const lifetime = row.expires_at.getTime() - row.created_at.getTime();
    expect(lifetime).toBeGreaterThan(23 * 3_600_000);
    expect(lifetime).toBeLessThanOrEqual(24 * 3_600_000 + 1_000);
    expect((await sql`SELECT count(*)::int AS n FROM mcp_sessions WHERE id_sha256 = ${id}`)[0]?.n).toBe(0);
    // Each initialize mints its own.
    expect((await legacySession(server.url, token, {}))["mcp-session-id"]).not.toBe(id);
  });

  it("answers 404 for an unknown, malformed, expired or another key's session; no session stays stateless", async () => {
    const raw = legacyRaw(server.url, token);
    const mine = await legacySession(server.url, token, {});
    expect((await raw.request("tools/list", {}, { headers: mine })).status).toBe(200);
    expect((await raw.request("tools/list")).status).toBe(200);

    for (const bogus of ["unknown-session-id-0123456789abcdef", "x".repeat(300)]) {
      const unknown = await raw.request("tools/list", {}, { headers: { "mcp-session-id": bogus } });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.code).toBe(-32600);
    }
    // Same tenant, another key: exactly the answer an unknown ID gets.
    const foreign = await legacyRaw(server.url, otherKey).request("tools/list", {}, { headers: mine });
    expect(foreign.status).toBe(404);
    const unknown = await raw.request("tools/list", {}, { headers: { "mcp-session-id": "unknown-session-id-0123456789abcdef" } });
    expect(foreign.body).toEqual(unknown.body);
    // Client responses and notifications name the session too.
    expect((await raw.post({ jsonrpc: "2.0", method: "notifications/initialized" }, { headers: mine })).status).toBe(202);
    expect(
      (await legacyRaw(server.url, otherKey).post({ jsonrpc: "2.0", method: "notifications/initialized" }, { headers: mine }))
        .status,
    ).toBe(404);

    // Sliding expiry: a session used with less than 23 h left is given a full day again.
    const digest = sha256(mine["mcp-session-id"]);
    await sql`UPDATE mcp_sessions SET expires_at = now() + interval '2 hours' WHERE id_sha256 = ${digest}`;
    expect((await raw.request("ping", {}, { headers: mine })).status).toBe(200);
    const left = await sql`SELECT expires_at - now() > interval '23 hours' AS slid FROM mcp_sessions WHERE id_sha256 = ${digest}`;
    expect(left[0]?.slid).toBe(true);

    await sql`UPDATE mcp_sessions SET expires_at = now() - interval '1 second' WHERE id_sha256 = ${digest}`;
    expect((await raw.request("tools/list", {}, { headers: mine })).status).toBe(404);
    // A client re-initializing after the 404 gets a new session.
    const fresh = await legacySession(server.url, token, {});
    expect((await raw.request("ping", {}, { headers: fresh })).body).toMatchObject({ result: {} });
  });

  it("DELETE ends the caller's session; another key's, unknown and missing IDs change nothing", async () => {
    const raw = legacyRaw(server.url, token);
    const session = await legacySession(server.url, token, {});
    expect((await del(session, otherKey)).status).toBe(404);
    expect((await raw.request("ping", {}, { headers: session })).status).toBe(200);
    expect((await del({})).status).toBe(400);
    expect((await del({ "mcp-session-id": "nope" })).status).toBe(404);
    expect((await del({}, "rf_0000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")).status).toBe(401);

    const ended = await del(session);
    expect(ended.status).toBe(204);
    expect((await raw.request("ping", {}, { headers: session })).status).toBe(404);
    expect((await del(session)).status).toBe(404);
    // The modern era has no sessions to delete.
    expect((await del({ ...session, "mcp-protocol-version": "2026-07-28" })).status).toBe(405);
  });

  it("ignores Mcp-Session-Id on modern requests (2026-07-28 has no sessions)", async () => {
    const modern = modernClient(server.url, { token });
    const listed = await modern.request("tools/list", {}, { headers: { "mcp-session-id": "not-a-session" } });
    expect(listed.status).toBe(200);
    expect(listed.headers.get("mcp-session-id")).toBeNull();
  });

  it("purges expired sessions when new ones are created", async () => {
    const acme = await findTenantBySlug(sql, "tenant-acme");
    await sql`INSERT INTO mcp_sessions (id_sha256, tenant_id, key_id, protocol_version, client_capabilities, expires_at)
              VALUES ('stale-1', ${acme?.id as string}, 'k', '2025-11-25', '{}'::jsonb, now() - interval '1 hour'),
                     ('live-1', ${acme?.id as string}, 'k', '2025-11-25', '{}'::jsonb, now() + interval '1 hour')`;
    await legacySession(server.url, token, {});
    const left = await sql`SELECT id_sha256 FROM mcp_sessions WHERE id_sha256 IN ('stale-1', 'live-1')`;
    expect(left.map((row) => row.id_sha256)).toEqual(["live-1"]);
  });
});

describe("nothing is sent that the client did not declare", () => {
  /**
   * A tasks/result stream for an approve_expense task, opened with `headers`; the question is then
   * answered from the operator's form, so the stream ends and shows everything it carried.
   */
  async function streamedWhileAnswered(headers: Record<string, string>) {
    const raw = legacyRaw(server.url, token);
    const created = await raw.request("tools/call", {
      name: "approve_expense",
      arguments: { expense_id: `G-${Math.random()}`, amount: 5 },
      task: {},
    });
    const taskId = created.body.result.task.taskId as string;
    await waitForRunStatus(sql, taskId, "waiting_input");
    const stream = await legacyStream(
      server.url,
      token,
      { jsonrpc: "2.0", id: "res", method: "tasks/result", params: { taskId } },
      "2025-11-25",
      headers,
    );
    await stream.next((e) => e.method === "notifications/tasks/status" && e.params.status === "input_required");
    const acme = await findTenantBySlug(sql, "tenant-acme");
    const answered = await answerPendingInput(sql, {
      taskId,
      tenantId: acme?.id as string,
      key: "decision",
      response: { action: "accept", content: { decision: "approve" } },
      actor: "operator:test",
    });
    expect(answered.answered).toBe(true);
    await stream.done;
    expect(stream.events.at(-1)).toMatchObject({ id: "res", result: { structuredContent: { decision: "approved" } } });
    return stream.events;
  }

  it("tasks/result sends elicitation/create only to a session that declared form-mode elicitation", async () => {
    const none = await streamedWhileAnswered({});
    expect(none.filter((e) => e.method === "elicitation/create")).toEqual([]);
    const withoutElicitation = await streamedWhileAnswered(await legacySession(server.url, token, { sampling: {} }));
    expect(withoutElicitation.filter((e) => e.method === "elicitation/create")).toEqual([]);
    // approve_expense asks a form; a client that declared only URL mode MUST NOT get it.
    const urlOnly = await streamedWhileAnswered(await legacySession(server.url, token, { elicitation: { url: {} } }));
    expect(urlOnly.filter((e) => e.method === "elicitation/create")).toEqual([]);
    // A 2025-06-18 session has elicitation; `{}` means form.
    const declared = await streamedWhileAnswered(await legacySession(server.url, token, { elicitation: {} }, "2025-06-18"));
    expect(declared.filter((e) => e.method === "elicitation/create")).toHaveLength(1);
  });
});
