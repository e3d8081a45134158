import { randomUUID } from "node:crypto";
import {
  createRegistry,
  createWorker,
  defineWorkflow,
  describeDefinition,
  publishDefinitions,
  sendSignal,
  silentLogger,
} from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { findTenantBySlug } from "../../db/queries/tenants";
import { createKey, definitionsFromStore, SEED_ACTOR, saveRoute } from "../../lib/admin";
import { presentTaskDetail } from "../../lib/ui/presenters/task-detail";
import { seedDemo } from "../../workflows/demo/seed";
import { runCli } from "../cli/run-cli";
import { freshDatabase } from "../helpers/db";
import { legacyRaw } from "../helpers/legacy-client";
import { startMcpTestServer } from "../helpers/mcp-server";
import { modernClient } from "../helpers/modern-client";
import { waitForValue } from "../helpers/wait-for";

/**
 * Child workflows (issue 32): the links between a parent task and the child tasks it started with
 * ctx.child are visible — tasks/get `_meta["io.runifold/taskLinks"]` in both eras, the console's task
 * page, `runifold tasks history` — and only in the tasks' own tenant.
 */
const kid = defineWorkflow({
  name: "test-kid",
  version: 1,
  input: z.object({ n: z.number() }),
  asks: {},
  async run(ctx, { n }) {
    await ctx.waitForSignal("go");
    return { content: [{ type: "text", text: `kid ${n}` }] };
  },
});
const family = defineWorkflow({
  name: "test-family",
  version: 1,
  input: z.object({}).passthrough(),
  asks: {},
  async run(ctx) {
    const results = await Promise.all(
      [1, 2].map((n) => ctx.child(kid, { n }, { key: `kid-${n}` })).map((child) => child.result()),
    );
    return { content: results.flatMap((result) => result.content) };
  },
});

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let worker: ReturnType<typeof createWorker>;
let token: string;
let otherToken: string;
let acmeId: string;
let otherTenantId: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  token = (await seedDemo(sql)).apiKey as string;
  await publishDefinitions(sql, [kid, family].map(describeDefinition), "test");
  acmeId = (await findTenantBySlug(sql, "tenant-acme"))?.id as string;
  otherTenantId = (await findTenantBySlug(sql, "conformance"))?.id as string;
  const ctx = { sql, actor: SEED_ACTOR, resolveDefinition: definitionsFromStore(sql) };
  await saveRoute(ctx, { tenantId: acmeId, toolName: "family", workflowName: "test-family", workflowVersion: 1 });
  otherToken = (await createKey(ctx, { tenantId: otherTenantId, name: "other" })).token;
  server = await startMcpTestServer(sql);
  worker = createWorker({ sql, registry: createRegistry([kid, family]), logger: silentLogger, pollMs: 200 });
  await worker.start();
});
afterAll(async () => {
  await worker?.stop(500);
  await server?.close();
  await db?.drop();
});

/** The parent's two children once both have started and wait for their signal. */
function childrenOf(parentId: string) {
  return waitForValue(
    async () => {
      const rows = await sql<{ id: string }[]>`
        SELECT id FROM runs WHERE parent_run_id = ${parentId} AND status = 'waiting_signal' ORDER BY created_at, id`;
      return rows.length === 2 ? rows.map((row) => row.id) : undefined;
    },
    { describe: `two waiting children of ${parentId}` },
  );
}

const LINKS = "io.runifold/taskLinks";

describe("child task links", () => {
  it("tasks/get of both eras carries the parent's children and each child's parent, for the tenant only", async () => {
    const modern = modernClient(server.url, { token });
    const { taskId: parentId } = await modern.result("tools/call", { name: "family", arguments: {} });
    const children = await childrenOf(parentId);

    const parent = await modern.result("tasks/get", { taskId: parentId });
    expect(parent._meta[LINKS]).toEqual({ childTaskIds: children });
    expect(parent.statusMessage).toBe("Waiting for 2 child tasks to finish");
    // The credential that follows the parent follows its children: they are its tasks too.
    for (const childId of children) {
      expect((await modern.result("tasks/get", { taskId: childId }))._meta[LINKS]).toEqual({ parentTaskId: parentId });
    }

    const legacy = legacyRaw(server.url, token);
    const legacyParent = await legacy.request("tasks/get", { taskId: parentId });
    expect(legacyParent.body.result._meta).toEqual({ [LINKS]: { childTaskIds: children } });
    const legacyChild = await legacy.request("tasks/get", { taskId: children[0] });
    expect(legacyChild.body.result._meta).toEqual({ [LINKS]: { parentTaskId: parentId } });

    const listed = (await legacy.request("tasks/list", {})).body.result.tasks.map((task: { taskId: string }) => task.taskId);
    expect(listed).toEqual(expect.arrayContaining([parentId, ...children]));
    // Another tenant's key reaches neither task, so neither link.
    const stranger = await legacyRaw(server.url, otherToken).request("tasks/get", { taskId: children[0] });
    expect(stranger.body.error?.message).toBe("Failed to retrieve task: Task not found");
    // A run of another tenant naming the parent (which the engine never writes) is not shown as its child.
    const foreign = randomUUID();
    await sql`INSERT INTO runs (id, tenant_id, workflow_name, workflow_version, workflow_key, status, input, parent_run_id, parent_key)
              VALUES (${foreign}, ${otherTenantId}, 'test-kid', 1, 'test-kid@1', 'queued', '{}', ${parentId}, 'foreign')`;
    expect((await modern.result("tasks/get", { taskId: parentId }))._meta[LINKS]).toEqual({ childTaskIds: children });
    await sql`UPDATE runs SET status = 'cancelled' WHERE id = ${foreign}`;

    for (const childId of children) await sendSignal(sql, { runId: childId, name: "go", payload: null });
    const done = await waitForValue(
      async () => {
        const task = await modern.result("tasks/get", { taskId: parentId });
        return task.status === "completed" ? task : undefined;
      },
      { describe: "the parent to complete" },
    );
    expect(done.result.content).toEqual([
      { type: "text", text: "kid 1" },
      { type: "text", text: "kid 2" },
    ]);
    expect(done._meta[LINKS]).toEqual({ childTaskIds: children });
  });

  it("the console's task page links parent and children, and runifold tasks history names each child's task", async () => {
    const { taskId: parentId } = await modernClient(server.url, { token }).result("tools/call", {
      name: "family",
      arguments: {},
    });
    const children = await childrenOf(parentId);
    const operator = { id: randomUUID(), email: "op@example.com", name: "op", role: "operator" as const, tenantIds: [acmeId] };
    expect(await presentTaskDetail(sql, operator, parentId)).toMatchObject({ parentTaskId: null, childTaskIds: children });
    expect(await presentTaskDetail(sql, operator, children[1] as string)).toMatchObject({
      parentTaskId: parentId,
      childTaskIds: [],
    });
    const outsider = { ...operator, tenantIds: [otherTenantId] };
    expect(await presentTaskDetail(sql, outsider, parentId)).toBeUndefined();

    const history = await runCli(["tasks", "history", parentId], { DATABASE_URL: db.url });
    expect(history.code).toBe(0);
    const keys = await sql<
      { id: string; parent_key: string }[]
    >`SELECT id, parent_key FROM runs WHERE parent_run_id = ${parentId}`;
    expect(keys).toHaveLength(2);
    for (const { id, parent_key } of keys) {
      expect(history.stdout).toMatch(new RegExp(`child\\s+child:${parent_key}\\s+\\{"taskId":"${id}"`));
    }
    for (const childId of children) await sendSignal(sql, { runId: childId, name: "go", payload: null });
  });
});
