import { createHash } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeApiKeyAsAdmin } from "../../db/queries/api-keys";
import { findTenantBySlug } from "../../db/queries/tenants";
import { createApiKey } from "../../lib/auth";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { legacyRaw, legacySession } from "../helpers/legacy-client";
import { startMcpTestServer } from "../helpers/mcp-server";

/**
 * The legacy era has no routing headers, so the gate reads a session request's body (legacy/read-ahead.ts)
 * and reads the API key, the key's session and a tasks/get's task (or a tools/call's route and the
 * key's live-task count) in one statement (readApiKeyWithSession) instead of three. The session and binding rules hold on that read as on
 * the ordinary one: another key's session is 404, another key's or tenant's task answers like an
 * unknown one, a revoked key is 401 — and an unverified caller never slides anyone's session.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let counted: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let token: string;
let acmeId: string;
let statements = 0;

beforeAll(async () => {
  db = await freshDatabase();
  token = (await seedDemo(db.sql)).apiKey as string;
  acmeId = (await findTenantBySlug(db.sql, "tenant-acme"))?.id as string;
  // The server's own pool, counting every statement it sends.
  counted = postgres(db.url, { max: 4, onnotice: () => {}, debug: () => statements++ });
  // No in-process worker: its polls would share the counted pool (the tasks stay "working").
  server = await startMcpTestServer(counted, { worker: false });
});
afterAll(async () => {
  await server.close();
  await counted.end();
  await db.drop();
});

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");
const withoutId = (body: { id?: unknown }) => JSON.stringify({ ...body, id: null });
const expiryOf = async (session: { "mcp-session-id": string }) => {
  const [row] = await db.sql<
    { expires_at: Date }[]
  >`SELECT expires_at FROM mcp_sessions WHERE id_sha256 = ${sha256(session["mcp-session-id"])}`;
  if (!row) throw new Error("no such session");
  return row.expires_at.getTime();
};

async function sessionWithTask(bearer = token) {
  const session = await legacySession(server.url, bearer, {});
  const client = legacyRaw(server.url, bearer, { headers: session });
  const created = await client.request("tools/call", {
    name: "durable_report",
    arguments: { report_id: "ra" },
    task: { ttl: 60_000 },
  });
  const taskId = created.body.result.task.taskId as string;
  return { session, client, taskId };
}

describe("legacy tasks/get in a session: the key, the session and the task in one read", () => {
  it("answers with one statement, the same task as a request without a session", async () => {
    const { client, taskId } = await sessionWithTask();
    await client.request("tasks/get", { taskId }); // warm-up: the key's last-used touch
    const before = statements;
    const inSession = await client.request("tasks/get", { taskId });
    expect(statements - before).toBe(1);
    expect(inSession.body.result).toMatchObject({ taskId, status: "working" });
    const stateless = await legacyRaw(server.url, token).request("tasks/get", { taskId });
    expect(withoutId(stateless.body)).toBe(withoutId(inSession.body));
    // Any other legacy method in a session reads the key and the session together: tools/list adds its own reads only.
    const listed = await client.request("tools/list", {});
    expect(listed.body.result.tools.length).toBeGreaterThan(0);
  });

  it("a task-creating tools/call in a session reads the key, the session, the route and the live-task count in one statement", async () => {
    const { client } = await sessionWithTask();
    const before = statements;
    const created = await client.request("tools/call", {
      name: "durable_report",
      arguments: { report_id: "two" },
      task: { ttl: 60_000 },
    });
    // The gate's read, the create (its wake-up NOTIFY inside it), and the task's link to the session
    // that created it (the session is sent its questions). Without the read-ahead: six.
    expect(statements - before).toBe(3);
    expect(created.body.result.task.taskId).toBeTypeOf("string");
    const unknown = await client.request("tools/call", { name: "no_such_tool", arguments: {}, task: { ttl: 60_000 } });
    expect(unknown.body.error?.message).toBe("Unknown tool: no_such_tool");
  });

  it("another key's session is 404 and is not slid; another key's task answers like an unknown one", async () => {
    const mine = await sessionWithTask();
    const other = (await createApiKey(db.sql, { tenantId: acmeId, name: "sibling" })).token;
    // A session due for its slide: only its own verified key may move it.
    await db.sql`UPDATE mcp_sessions SET expires_at = now() + interval '1 minute' WHERE id_sha256 = ${sha256(mine.session["mcp-session-id"])}`;
    const due = await expiryOf(mine.session);
    const stolen = await legacyRaw(server.url, other, { headers: mine.session }).request("tasks/get", { taskId: mine.taskId });
    expect(stolen.status).toBe(404);
    expect(await expiryOf(mine.session)).toBe(due);
    // The sibling's own session asks for my task: the same answer as for an ID that never existed.
    const theirs = await legacySession(server.url, other, {});
    const sibling = legacyRaw(server.url, other, { headers: theirs });
    const foreign = await sibling.request("tasks/get", { taskId: mine.taskId });
    const unknown = await sibling.request("tasks/get", { taskId: "3f1d2c4b-1111-4222-8333-444455556666" });
    expect(foreign.status).toBe(unknown.status);
    expect(withoutId(foreign.body)).toBe(withoutId(unknown.body));
    expect(unknown.body.error.code).toBe(-32602);
    // My own key slides it, once.
    await mine.client.request("tasks/get", { taskId: mine.taskId });
    expect(await expiryOf(mine.session)).toBeGreaterThan(due + 23 * 3_600_000);
  });

  it("a revoked key gets 401 and slides nothing; an expired session is 404", async () => {
    const key = await createApiKey(db.sql, { tenantId: acmeId, name: "to-revoke" });
    const { session, client, taskId } = await sessionWithTask(key.token);
    await db.sql`UPDATE mcp_sessions SET expires_at = now() + interval '1 minute' WHERE id_sha256 = ${sha256(session["mcp-session-id"])}`;
    const due = await expiryOf(session);
    await revokeApiKeyAsAdmin(db.sql, key.keyId);
    expect((await client.request("tasks/get", { taskId })).status).toBe(401);
    expect(await expiryOf(session)).toBe(due);

    const live = await sessionWithTask();
    await db.sql`UPDATE mcp_sessions SET expires_at = now() - interval '1 second' WHERE id_sha256 = ${sha256(live.session["mcp-session-id"])}`;
    expect((await live.client.request("tasks/get", { taskId: live.taskId })).status).toBe(404);
  });
});
