import { randomUUID } from "node:crypto";
import { createRun } from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertRouteRevision } from "../../db/queries/routes";
import { createApiKey, requireOperator } from "../../lib/auth";
import { AppError } from "../../lib/errors";
import { createKeyAction, revokeKeyAction } from "../../lib/ui/actions/key-actions";
import { disableRouteAction, saveRouteAction } from "../../lib/ui/actions/route-actions";
import { answerInputAction, cancelTaskAction } from "../../lib/ui/actions/task-actions";
import {
  addMemberAction,
  createOperatorAction,
  createTenantAction,
  removeMemberAction,
  setOperatorDisabledAction,
} from "../../lib/ui/actions/tenant-actions";
import { handleTaskDetail, handleTaskList } from "../../lib/ui/handlers/task-handlers";
import { presentInbox } from "../../lib/ui/presenters/inbox";
import { presentTenantDetail } from "../../lib/ui/presenters/tenants";
import { freshDatabase } from "../helpers/db";
import { contextFor, makeOperator, makeTenant, makeWaitingRun } from "./helpers";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let tenantA: { id: string; slug: string };
let tenantB: { id: string; slug: string };
let opA: { id: string };
let admin: { id: string };
let bTask: string;
let bWaiting: string;
let bKey: string;
const missing = randomUUID();

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  tenantA = await makeTenant(sql, "tenant-a");
  tenantB = await makeTenant(sql, "tenant-b");
  opA = await makeOperator(sql, "operator", [tenantA.id]);
  admin = await makeOperator(sql, "admin");
  const schema = { type: "object" };
  for (const tenant of [tenantA, tenantB]) {
    await insertRouteRevision(sql, {
      tenantId: tenant.id,
      toolName: "durable_report",
      workflowName: "generate-report",
      workflowVersion: 1,
      inputSchema: schema,
      taskSupport: "optional",
    });
  }
  bTask = (await createRun(sql, { tenantId: tenantB.id, workflowName: "generate-report", workflowVersion: 1, input: {} })).id;
  bWaiting = await makeWaitingRun(sql, tenantB.id);
  bKey = (await createApiKey(sql, { tenantId: tenantB.id, name: "b-key" })).keyId;
});
afterAll(async () => {
  await db.drop();
});

/** The error an action throws (or fails the test). */
async function thrown(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("expected an AppError");
}

describe("operator UI authorization (every handler and action, called directly)", () => {
  it("rejects every handler and action without a session", async () => {
    const nobody = contextFor(sql, null);
    const list = await handleTaskList(nobody, new Request("http://console.test/api/ui/tasks"));
    expect(list.status).toBe(401);
    expect((await handleTaskDetail(nobody, new Request("http://x/"), bTask)).status).toBe(401);
    const calls = [
      createTenantAction(nobody, { slug: "zz", name: "Z" }),
      createOperatorAction(nobody, { email: "a@b.cd", password: "x".repeat(12), role: "admin" }),
      setOperatorDisabledAction(nobody, { operatorId: opA.id, disabled: true }),
      addMemberAction(nobody, { tenantId: tenantA.id, email: "a@b.cd" }),
      removeMemberAction(nobody, { tenantId: tenantA.id, operatorId: opA.id }),
      createKeyAction(nobody, { tenantId: tenantA.id, name: "k", scopes: ["mcp"] }),
      revokeKeyAction(nobody, { tenantId: tenantB.id, keyId: bKey }),
      saveRouteAction(nobody, {
        tenantId: tenantA.id,
        toolName: "t",
        workflowName: "generate-report",
        workflowVersion: 1,
        taskSupport: "optional",
      }),
      disableRouteAction(nobody, { tenantId: tenantA.id, toolName: "durable_report" }),
      cancelTaskAction(nobody, { taskId: bTask }),
      answerInputAction(nobody, { taskId: bWaiting, key: "decision", action: "accept", values: { decision: "approve" } }),
    ];
    for (const call of calls) expect((await thrown(call)).code).toBe("unauthenticated");
  });

  it("answers another tenant's task exactly like a missing one, in handlers and actions", async () => {
    const ctx = contextFor(sql, opA.id);
    const foreign = await handleTaskDetail(ctx, new Request("http://x/"), bTask);
    const absent = await handleTaskDetail(ctx, new Request("http://x/"), missing);
    expect(foreign.status).toBe(404);
    expect(await foreign.text()).toBe(await absent.text());
    expect((await handleTaskDetail(ctx, new Request("http://x/?before=999999"), bTask)).status).toBe(404);

    const cancelForeign = await thrown(cancelTaskAction(ctx, { taskId: bTask }));
    const cancelMissing = await thrown(cancelTaskAction(ctx, { taskId: missing }));
    expect([cancelForeign.code, cancelForeign.message]).toEqual([cancelMissing.code, cancelMissing.message]);
    expect(cancelForeign.code).toBe("not_found");

    const answer = { key: "decision", action: "accept" as const, values: { decision: "approve" } };
    const answerForeign = await thrown(answerInputAction(ctx, { taskId: bWaiting, ...answer }));
    const answerMissing = await thrown(answerInputAction(ctx, { taskId: missing, ...answer }));
    expect([answerForeign.code, answerForeign.message]).toEqual([answerMissing.code, answerMissing.message]);

    const rows = await sql`SELECT status FROM runs WHERE id IN (${bTask}, ${bWaiting}) ORDER BY status`;
    expect(rows.map((r) => r.status)).toEqual(["queued", "waiting_input"]);
  });

  it("never lists another tenant's tasks or inbox items, even when asked by tenant id", async () => {
    const ctx = contextFor(sql, opA.id);
    const all = await (await handleTaskList(ctx, new Request("http://x/api/ui/tasks"))).json();
    const asked = await (await handleTaskList(ctx, new Request(`http://x/api/ui/tasks?tenant=${tenantB.id}`))).json();
    expect(all.items).toEqual([]);
    expect(asked.items).toEqual([]);
    const operator = await requireOperator(ctx);
    expect(await presentInbox(sql, operator)).toEqual([]);
    const adminList = await (await handleTaskList(contextFor(sql, admin.id), new Request("http://x/api/ui/tasks"))).json();
    expect(adminList.items.map((t: { id: string }) => t.id).sort()).toEqual([bTask, bWaiting].sort());
  });

  it("keeps tenants, keys and routes of another tenant out of reach", async () => {
    const ctx = contextFor(sql, opA.id);
    const operator = await requireOperator(ctx);
    expect(await presentTenantDetail(sql, operator, tenantB.slug)).toBeUndefined();
    expect(await presentTenantDetail(sql, operator, "no-such-tenant")).toBeUndefined();
    expect(await presentTenantDetail(sql, operator, tenantA.slug)).toBeDefined();

    const notFound = async (call: Promise<unknown>) => expect((await thrown(call)).code).toBe("not_found");
    await notFound(revokeKeyAction(ctx, { tenantId: tenantB.id, keyId: bKey }));
    await notFound(revokeKeyAction(ctx, { tenantId: tenantA.id, keyId: bKey })); // own tenant, foreign key id
    await notFound(createKeyAction(ctx, { tenantId: tenantB.id, name: "steal", scopes: ["mcp"] }));
    await notFound(
      saveRouteAction(ctx, {
        tenantId: tenantB.id,
        toolName: "x",
        workflowName: "generate-report",
        workflowVersion: 1,
        taskSupport: "optional",
      }),
    );
    await notFound(disableRouteAction(ctx, { tenantId: tenantB.id, toolName: "durable_report" }));
    const [key] = await sql`SELECT revoked_at FROM api_keys WHERE id = ${bKey}`;
    expect(key?.revoked_at).toBeNull();
    expect((await sql`SELECT count(*)::int AS n FROM routes WHERE tenant_id = ${tenantB.id}`)[0]?.n).toBe(1);

    // Only admins manage tenants, operators and memberships.
    expect((await thrown(createTenantAction(ctx, { slug: "tenant-c", name: "C" }))).code).toBe("forbidden");
    expect((await thrown(addMemberAction(ctx, { tenantId: tenantB.id, email: "x@y.zz" }))).code).toBe("forbidden");
  });

  it("lets an operator act within its own tenant", async () => {
    const ctx = contextFor(sql, opA.id);
    const created = await createKeyAction(ctx, { tenantId: tenantA.id, name: "mine", scopes: ["mcp", "tasks:read"] });
    expect(created.token).toMatch(/^rf_[0-9a-f]{16}_/);
    await revokeKeyAction(ctx, { tenantId: tenantA.id, keyId: created.keyId });
    expect(
      (
        await saveRouteAction(ctx, {
          tenantId: tenantA.id,
          toolName: "durable_report",
          workflowName: "generate-report",
          workflowVersion: 2,
          taskSupport: "optional",
          allowUnpublished: true, // no worker publishes generate-report@2 (lib/admin/routes.ts)
        })
      ).revision,
    ).toBe(2);

    const waiting = await makeWaitingRun(sql, tenantA.id);
    const invalid = await answerInputAction(ctx, {
      taskId: waiting,
      key: "decision",
      action: "accept",
      values: { decision: "maybe", comment: "far too long" },
    });
    expect(invalid).toEqual({
      ok: false,
      errors: { decision: "Choose from the listed options", comment: "At most 10 characters" },
    });
    expect(
      await answerInputAction(ctx, { taskId: waiting, key: "decision", action: "accept", values: { decision: "approve" } }),
    ).toEqual({ ok: true, resumed: true, action: "accept" });
    const [input] = await sql`SELECT response, answered_by FROM run_inputs WHERE run_id = ${waiting}`;
    expect(input).toMatchObject({
      response: { action: "accept", content: { decision: "approve" } },
      answered_by: `operator:${opA.id}`,
    });
  });

  it("refuses cross-site mutations", async () => {
    const evil = contextFor(sql, admin.id, { origin: "https://evil.example", "sec-fetch-site": "cross-site" });
    expect((await thrown(createTenantAction(evil, { slug: "evil", name: "Evil" }))).code).toBe("forbidden");
    const forgedOrigin = contextFor(sql, admin.id, { origin: "https://evil.example", "sec-fetch-site": "" });
    expect((await thrown(cancelTaskAction(forgedOrigin, { taskId: bTask }))).code).toBe("forbidden");
    expect((await sql`SELECT status FROM runs WHERE id = ${bTask}`)[0]?.status).toBe("queued");
  });

  it("ends a disabled operator's access on the next request", async () => {
    const op = await makeOperator(sql, "operator", [tenantA.id]);
    const ctx = contextFor(sql, op.id);
    expect((await handleTaskList(ctx, new Request("http://x/api/ui/tasks"))).status).toBe(200);
    await setOperatorDisabledAction(contextFor(sql, admin.id), { operatorId: op.id, disabled: true });
    expect((await handleTaskList(ctx, new Request("http://x/api/ui/tasks"))).status).toBe(401);
    expect((await thrown(createKeyAction(ctx, { tenantId: tenantA.id, name: "k", scopes: ["mcp"] }))).code).toBe(
      "unauthenticated",
    );
  });

  it("applies a removed membership on the next request", async () => {
    const op = await makeOperator(sql, "operator", [tenantA.id]);
    const ctx = contextFor(sql, op.id);
    expect((await createKeyAction(ctx, { tenantId: tenantA.id, name: "k", scopes: ["mcp"] })).keyId).toBeTruthy();
    await removeMemberAction(contextFor(sql, admin.id), { tenantId: tenantA.id, operatorId: op.id });
    expect((await thrown(createKeyAction(ctx, { tenantId: tenantA.id, name: "k2", scopes: ["mcp"] }))).code).toBe("not_found");
  });
});
