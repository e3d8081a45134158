import { createRun } from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cancelTaskAction } from "../../lib/ui/actions/task-actions";
import { addMemberAction } from "../../lib/ui/actions/tenant-actions";
import { handleTaskDetail } from "../../lib/ui/handlers/task-handlers";
import { freshDatabase } from "../helpers/db";
import { contextFor, makeOperator, makeTenant } from "../ui/helpers";

// Review F10, ASVS 7.2.2 ("all failed decisions are logged"): console actions and lookups that
// another tenant's id or a member's missing role refuse are stored as `access.denied`, with no
// tenant (admins read it; the refusal itself stays exactly "not found"), at most one a second per
// operator so refusals cannot flood the trail.

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let tenantA: { id: string };
let tenantB: { id: string };
let betaTask: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  tenantA = await makeTenant(sql, "deny-a");
  tenantB = await makeTenant(sql, "deny-b");
  betaTask = (await createRun(sql, { tenantId: tenantB.id, workflowName: "generate-report", workflowVersion: 1, input: {} })).id;
});
afterAll(async () => {
  await db.drop();
});

type Denied = { actor: string; tenant_id: string | null; fields: Record<string, unknown> };
const deniedOf = (operatorId: string) =>
  sql<
    Denied[]
  >`SELECT actor, tenant_id, fields FROM audit_events WHERE action = 'access.denied' AND actor = ${`operator:${operatorId}`} ORDER BY id`;
const refused = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as { code?: string },
  );

describe("console access-control failures are logged (review F10)", () => {
  it("another tenant's task in a server action: 'not found' as before, and an access.denied event", async () => {
    const opA = await makeOperator(sql, "operator", [tenantA.id]);
    expect((await refused(cancelTaskAction(contextFor(sql, opA.id), { taskId: betaTask })))?.code).toBe("not_found");
    expect(await deniedOf(opA.id)).toEqual([
      {
        actor: `operator:${opA.id}`,
        tenant_id: null,
        fields: expect.objectContaining({ reason: "not_found", target: "action:cancelTask", taskId: betaTask }),
      },
    ]);
  });

  it("an admin-only action by a member: 'forbidden' as before, and an access.denied event", async () => {
    const member = await makeOperator(sql, "operator", [tenantA.id]);
    expect(
      (await refused(addMemberAction(contextFor(sql, member.id), { tenantId: tenantA.id, email: "x@ops.test" })))?.code,
    ).toBe("forbidden");
    expect(await deniedOf(member.id)).toEqual([
      expect.objectContaining({ fields: expect.objectContaining({ reason: "forbidden", target: "action:addMember" }) }),
    ]);
  });

  it("another tenant's task through /api/ui: the same 404, and an access.denied event", async () => {
    const opA = await makeOperator(sql, "operator", [tenantA.id]);
    const response = await handleTaskDetail(contextFor(sql, opA.id), new Request("http://x/"), betaTask);
    expect(response.status).toBe(404);
    expect(await deniedOf(opA.id)).toEqual([
      expect.objectContaining({
        fields: expect.objectContaining({ reason: "not_found", target: "GET /api/ui/tasks/{id}", taskId: betaTask }),
      }),
    ]);
  });

  it("stores at most one event a second per operator", async () => {
    const opA = await makeOperator(sql, "operator", [tenantA.id]);
    for (let i = 0; i < 20; i++) await refused(cancelTaskAction(contextFor(sql, opA.id), { taskId: betaTask }));
    expect(await deniedOf(opA.id)).toHaveLength(1);
  });
});

describe("same-origin check (review F13)", () => {
  it("a client-sent X-Forwarded-Host does not make a cross-site Origin same-origin; RUNIFOLD_PUBLIC_URL still does", async () => {
    const { assertSameOrigin } = await import("../../lib/auth");
    const spoofed = new Headers({ host: "console.test", origin: "http://evil.example", "x-forwarded-host": "evil.example" });
    expect(() => assertSameOrigin(spoofed, [])).toThrow("Cross-site request refused.");
    // Behind a proxy that rewrites Host, the public URL is what the browser's Origin matches.
    const proxied = new Headers({ host: "web:3000", origin: "https://runifold.example", "x-forwarded-host": "runifold.example" });
    expect(() => assertSameOrigin(proxied, ["https://runifold.example"])).not.toThrow();
    expect(() => assertSameOrigin(new Headers({ host: "console.test", origin: "http://console.test" }), [])).not.toThrow();
  });
});
