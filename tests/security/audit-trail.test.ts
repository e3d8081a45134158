import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant, listAudit, SEED_ACTOR, setTenantDisabled } from "../../lib/admin";
import { authenticateOperator } from "../../lib/auth";
import { lastJson, runCli } from "../cli/run-cli";
import { freshDatabase } from "../helpers/db";
import { makeOperator } from "../ui/helpers";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
});
afterAll(async () => {
  await db.drop();
});

describe("stored audit trail (L6)", () => {
  it("stores admin actions in audit_events (before: stderr lines only)", async () => {
    const tenant = await createTenant({ sql, actor: SEED_ACTOR }, { slug: "audited" });
    await setTenantDisabled({ sql, actor: { kind: "cli", user: "u", host: "h" } }, { tenantId: tenant.id, disabled: true });
    const events = await listAudit({ sql }, { tenantId: tenant.id });
    expect(events.map((e) => [e.action, e.actor])).toEqual([
      ["tenant.disable", "cli:u@h"],
      ["tenant.create", "seed"],
    ]);
  });

  it("stores sign-in success and failure with the client address and no secret", async () => {
    const op = await makeOperator(sql, "operator", [], "audit-password-1");
    await authenticateOperator(sql, { email: op.email, password: "wrong-password", clientAddress: "198.51.100.4" });
    await authenticateOperator(sql, { email: op.email, password: "audit-password-1", clientAddress: "198.51.100.4" });
    const events = await listAudit({ sql }, { action: "auth." });
    const [success, failure] = events;
    expect(success).toMatchObject({ action: "auth.login.success", actor: `operator:${op.id}`, address: "198.51.100.4" });
    expect(failure).toMatchObject({ action: "auth.login.failure", actor: "anonymous", address: "198.51.100.4" });
    const text = JSON.stringify(await sql`SELECT * FROM audit_events`);
    expect(text).not.toContain("audit-password-1");
    expect(text).not.toContain("wrong-password");
    expect(text).not.toContain(op.email); // failures name the email by a hash prefix only
  });

  it("stores events whatever RUNIFOLD_LOG_LEVEL says, and `runifold audit list` reads them", async () => {
    const run = await runCli(["audit", "list", "--action", "tenant.", "--json"], {
      DATABASE_URL: db.url,
      RUNIFOLD_LOG_LEVEL: "silent",
    });
    expect(run.code).toBe(0);
    expect(lastJson(run).map((e: { action: string }) => e.action)).toEqual(["tenant.disable", "tenant.create"]);
    const created = await runCli(["tenants", "create", "quiet-one", "--json"], {
      DATABASE_URL: db.url,
      RUNIFOLD_LOG_LEVEL: "silent",
    });
    expect(created.code).toBe(0);
    expect(created.stderr).toBe("");
    const [row] = await sql`SELECT actor FROM audit_events WHERE action = 'tenant.create' AND fields->>'slug' = 'quiet-one'`;
    expect(row?.actor).toMatch(/^cli:/);
  });
});
