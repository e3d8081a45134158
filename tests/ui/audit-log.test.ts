import { randomUUID } from "node:crypto";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditSearchStatement } from "../../db/queries/audit-search";
import { type AuditRecord, searchAudit } from "../../lib/admin";
import { handleAuditCsv } from "../../lib/ui/handlers/audit-handlers";
import { presentAuditPage } from "../../lib/ui/presenters/audit";
import { freshDatabase } from "../helpers/db";
import { contextFor, makeOperator, makeTenant } from "./helpers";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let tenantA: { id: string; slug: string };
let tenantB: { id: string; slug: string };
let member: { id: string; email: string };
let admin: { id: string; email: string };

const T0 = Date.parse("2026-03-01T10:00:00.000Z");
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

async function insertEvent(event: {
  at: Date;
  actor: string;
  action: string;
  tenantId?: string | null;
  operatorId?: string | null;
  fields?: Record<string, unknown>;
}) {
  await sql.unsafe(
    `INSERT INTO audit_events (at, actor, operator_id, action, tenant_id, fields) VALUES ($1, $2, $3::uuid, $4, $5::uuid, $6::text::jsonb)`,
    [event.at, event.actor, event.operatorId ?? null, event.action, event.tenantId ?? null, JSON.stringify(event.fields ?? {})],
  );
}

/** Every page of a search, following `next`, as one list. */
async function allPages(input: Parameters<typeof searchAudit>[1]): Promise<AuditRecord[]> {
  const all: AuditRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await searchAudit({ sql }, { ...input, cursor });
    all.push(...page.entries);
    cursor = page.next ?? undefined;
  } while (cursor);
  return all;
}

const operatorOf = (o: { id: string; email: string }, tenantIds: string[] | null) => ({
  id: o.id,
  email: o.email,
  name: "x",
  role: tenantIds === null ? ("admin" as const) : ("operator" as const),
  tenantIds,
});

/** A minimal RFC 4180 reader (quoted fields, doubled quotes, CRLF), to check what the export wrote. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      i++;
    } else field += c;
  }
  return rows;
}

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  tenantA = await makeTenant(sql, "audit-a");
  tenantB = await makeTenant(sql, "audit-b");
  member = await makeOperator(sql, "operator", [tenantA.id]);
  admin = await makeOperator(sql, "admin");
  await insertEvent({ at: at(0), actor: "anonymous", action: "auth.login.failure" });
  await insertEvent({
    at: at(1),
    actor: `operator:${admin.id}`,
    operatorId: admin.id,
    action: "tenant.create",
    tenantId: tenantA.id,
  });
  await insertEvent({ at: at(2), actor: "cli:ops@host", action: "key.create", tenantId: tenantB.id });
  await insertEvent({
    at: at(3),
    actor: `operator:${member.id}`,
    operatorId: member.id,
    action: "task.cancel",
    tenantId: tenantA.id,
  });
  await insertEvent({
    at: at(4),
    actor: "cli:ops@host",
    action: "key.create",
    tenantId: tenantA.id,
    fields: { name: '=HYPERLINK("http://evil")', note: 'a, "quoted"\nline', minus: "-1+2" },
  });
  // Five events in the same millisecond: the keyset must page through ties by id, none twice or lost.
  for (let i = 0; i < 5; i++) {
    await insertEvent({
      at: at(5),
      actor: `operator:${member.id}`,
      operatorId: member.id,
      action: "task.rerun",
      tenantId: tenantA.id,
    });
  }
});
afterAll(async () => {
  await db.drop();
});

describe("audit search", () => {
  it("filters by actor (label, prefix, email), action (exact, prefix), tenant and time range", async () => {
    const actions = async (input: Parameters<typeof searchAudit>[1]) =>
      (await allPages({ ...input, limit: 100 })).map((e) => e.action);
    expect(await actions({ scope: null, actor: "cli:ops@host" })).toEqual(["key.create", "key.create"]);
    expect(await actions({ scope: null, actor: "cli:" })).toEqual(["key.create", "key.create"]);
    expect(await actions({ scope: null, actor: member.email.toUpperCase() })).toEqual([
      ...Array(5).fill("task.rerun"),
      "task.cancel",
    ]);
    expect(await actions({ scope: null, action: "auth." })).toEqual(["auth.login.failure"]);
    expect(await actions({ scope: null, action: "auth" })).toEqual([]);
    expect(await actions({ scope: null, action: "key.create", tenantId: tenantB.id })).toEqual(["key.create"]);
    expect(await actions({ scope: null, from: at(1), to: at(3) })).toEqual(["key.create", "tenant.create"]);
  });

  it("pages newest first by (at, id) with no event lost or repeated, ties included", async () => {
    const everything = await allPages({ scope: null, limit: 100 });
    expect(everything).toHaveLength(10);
    const paged = await allPages({ scope: null, limit: 2 });
    expect(paged.map((e) => e.id)).toEqual(everything.map((e) => e.id));
    const keys = everything.map((e) => [Date.parse(e.at), e.id] as const);
    const sorted = [...keys].sort((x, y) => y[0] - x[0] || y[1] - x[1]);
    expect(keys).toEqual(sorted);
    expect(everything[0]).toMatchObject({ action: "task.rerun", tenantSlug: "audit-a", operatorEmail: member.email });
  });

  it("shows a member only its tenants' events: none about no tenant, none of another tenant, even when asked", async () => {
    const seen = await allPages({ scope: [tenantA.id], limit: 3 });
    expect(seen).toHaveLength(8);
    expect(seen.every((e) => e.tenantId === tenantA.id)).toBe(true);
    expect(await allPages({ scope: [tenantA.id], tenantId: tenantB.id, limit: 10 })).toEqual([]);
    const page = await presentAuditPage(sql, operatorOf(member, [tenantA.id]), new URLSearchParams({ tenant: tenantB.id }));
    expect(page.entries).toEqual([]);
    expect(page.tenants.map((t) => t.slug)).toEqual(["audit-a"]);
    const adminPage = await presentAuditPage(sql, operatorOf(admin, null), new URLSearchParams({ action: "auth." }));
    expect(adminPage.entries.map((e) => e.action)).toEqual(["auth.login.failure"]);
  });

  it("reads datetime-local values as UTC and reports a bad date instead of failing the page", async () => {
    const view = await presentAuditPage(
      sql,
      operatorOf(admin, null),
      new URLSearchParams({ from: "2026-03-01T10:01", to: "2026-03-01T10:03" }),
    );
    expect(view.entries.map((e) => e.action)).toEqual(["key.create", "tenant.create"]);
    const bad = await presentAuditPage(sql, operatorOf(admin, null), new URLSearchParams({ from: "yesterday" }));
    expect(bad).toMatchObject({ entries: [], error: "from: not a date and time." });
  });

  it("serves the admin's list from audit_events_at_idx and a tenant's from audit_events_tenant_at_idx", async () => {
    const plans = await sql.begin(async (tx) => {
      // The table is tiny; without this the planner would rightly scan it. The question is whether the index fits the query.
      await tx.unsafe("SET LOCAL enable_seqscan = off");
      const explain = async (params: Parameters<typeof auditSearchStatement>[0]) => {
        const [text, values] = auditSearchStatement(params);
        const rows = await tx.unsafe(`EXPLAIN ${text}`, values as never[]);
        return rows.map((r) => Object.values(r)[0]).join("\n");
      };
      return {
        admin: await explain({ scope: null, limit: 51, after: { at: at(5), id: 9 } }),
        tenant: await explain({ scope: null, tenantId: tenantA.id, limit: 51 }),
        member: await explain({ scope: [tenantA.id], limit: 51 }),
      };
    });
    expect(plans.admin).toContain("audit_events_at_idx");
    expect(plans.tenant).toContain("audit_events_tenant_at_idx");
    expect(plans.member).toContain("audit_events_tenant_at_idx");
  });
});

describe("audit CSV export", () => {
  it("exports the member's filtered events with fields escaped and formulas neutralised, and audits the export", async () => {
    const response = await handleAuditCsv(
      contextFor(sql, member.id),
      new Request(`http://console.test/api/ui/audit.csv?action=key.create`),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="runifold-audit-[\d-T]+\.csv"$/);
    const rows = parseCsv(await response.text());
    expect(rows[0]).toEqual(["id", "at", "action", "actor", "operator_email", "tenant_id", "tenant_slug", "address", "fields"]);
    // Only tenant A's key.create: tenant B's is not the member's.
    expect(rows).toHaveLength(2);
    const row = rows[1] ?? [];
    expect(row.slice(2, 7)).toEqual(["key.create", "cli:ops@host", "", tenantA.id, "audit-a"]);
    expect(JSON.parse(row[8] ?? "")).toEqual({ name: '=HYPERLINK("http://evil")', note: 'a, "quoted"\nline', minus: "-1+2" });
    const exported = await searchAudit({ sql }, { scope: null, action: "audit.export" });
    expect(exported.entries[0]).toMatchObject({ actor: `operator:${member.id}`, fields: { actionFilter: "key.create" } });
  });

  it("prefixes a cell that starts like a formula with a quote", async () => {
    await insertEvent({ at: at(6), actor: "=cmd|'/C calc'!A0", action: "auth.login.failure" });
    await insertEvent({ at: at(7), actor: "@SUM(1)", action: "auth.login.failure" });
    const response = await handleAuditCsv(
      contextFor(sql, admin.id),
      new Request("http://console.test/api/ui/audit.csv?action=auth."),
    );
    const text = await response.text();
    const actors = parseCsv(text)
      .slice(1)
      .map((r) => r[3]);
    expect(actors).toEqual(["'@SUM(1)", "'=cmd|'/C calc'!A0", "anonymous"]);
    expect(text).not.toMatch(/(^|,)[=@+-]/m);
  });

  it("answers 401 without a session and 400 for a bad filter, before any CSV", async () => {
    const nobody = await handleAuditCsv(contextFor(sql, null), new Request("http://console.test/api/ui/audit.csv"));
    expect(nobody.status).toBe(401);
    for (const query of ["from=not-a-date", `tenant=${randomUUID().slice(0, 8)}`]) {
      const bad = await handleAuditCsv(contextFor(sql, admin.id), new Request(`http://console.test/api/ui/audit.csv?${query}`));
      expect(bad.status).toBe(400);
    }
  });
});
