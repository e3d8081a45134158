import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant, listAudit, purgeAuditTrail, SEED_ACTOR, setTenantDisabled } from "../../lib/admin";
import { authenticateOperator, LOGIN_THROTTLE } from "../../lib/auth";
import { readEnv } from "../../lib/env";
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

describe("flood control and retention (review F9)", () => {
  it("a locked address stores at most one throttled event a minute, not one per refused attempt", async () => {
    const address = "198.51.100.77";
    for (let i = 0; i < LOGIN_THROTTLE.address.limit; i++)
      await authenticateOperator(sql, { email: `flood-${i}@x.test`, password: "bad-password", clientAddress: address });
    for (let i = 0; i < 200; i++)
      await authenticateOperator(sql, { email: `flood-more-${i}@x.test`, password: "bad-password", clientAddress: address });
    const [row] =
      await sql`SELECT count(*)::int AS n FROM audit_events WHERE action = 'auth.login.throttled' AND address = ${address}`;
    expect(row?.n).toBeGreaterThanOrEqual(1);
    expect(row?.n).toBeLessThanOrEqual(2);
  });

  it("the retention pass deletes audit events older than RUNIFOLD_AUDIT_RETENTION_DAYS and keeps the rest", async () => {
    expect(readEnv({}).RUNIFOLD_AUDIT_RETENTION_DAYS).toBe(365);
    await sql`INSERT INTO audit_events (actor, action, fields, at) VALUES
      ('seed', 'test.old', '{}', now() - interval '31 days'), ('seed', 'test.recent', '{}', now() - interval '29 days')`;
    expect(await purgeAuditTrail(sql, { retentionDays: 30 })).toEqual({ events: 1 });
    const left = await sql`SELECT action FROM audit_events WHERE action LIKE 'test.%'`;
    expect(left.map((r) => r.action)).toEqual(["test.recent"]);
  });
});
