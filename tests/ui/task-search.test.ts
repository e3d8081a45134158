import { createRun } from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Operator } from "../../lib/auth";
import { presentTaskPage, TASK_PAGE_SIZE } from "../../lib/ui/presenters/task-list";
import { freshDatabase } from "../helpers/db";
import { makeOperator, makeTenant } from "./helpers";

/** The task list's input filter and "answered by" filter, against real Postgres. */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let tenantA: { id: string };
let tenantB: { id: string };
let member: Operator;
let admin: Operator;
const ids: Record<string, string> = {};

const newRun = async (tenantId: string, input: Record<string, unknown>) =>
  (await createRun(sql, { tenantId, workflowName: "approve-expense", workflowVersion: 1, input })).id;

async function search(operator: Operator, params: Record<string, string>) {
  return presentTaskPage(sql, operator, new URLSearchParams(params));
}
const found = async (operator: Operator, input: string) => (await search(operator, { input })).items.map((t) => t.id).sort();
const named = (...names: string[]) => names.map((name) => ids[name] as string).sort();

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  tenantA = await makeTenant(sql, "search-a");
  tenantB = await makeTenant(sql, "search-b");
  const m = await makeOperator(sql, "operator", [tenantA.id]);
  const a = await makeOperator(sql, "admin");
  member = { id: m.id, email: m.email, name: "", role: "operator", tenantIds: [tenantA.id] };
  admin = { id: a.id, email: a.email, name: "", role: "admin", tenantIds: null };
  ids.small = await newRun(tenantA.id, { expense_id: "E-1", amount: 5 });
  ids.large = await newRun(tenantA.id, { expense_id: "E-2", amount: 500, meta: { region: "eu" } });
  ids.stringAmount = await newRun(tenantA.id, { expense_id: "E-3", amount: "900" });
  ids.wordAmount = await newRun(tenantA.id, { expense_id: "E-4", amount: "abc", urgent: true });
  ids.none = await newRun(tenantA.id, { other: 1 });
  ids.foreign = await newRun(tenantB.id, { expense_id: "E-1", amount: 1000 });
});
afterAll(async () => {
  await db.drop();
});

describe("the task list's input filter", () => {
  it("narrows by numeric comparison, numbers only (a string amount neither matches nor breaks the cast)", async () => {
    expect(await found(member, "amount > 100")).toEqual(named("large"));
    expect(await found(member, "amount <= 5")).toEqual(named("small"));
    expect(await found(member, "amount >= 5 and amount < 501")).toEqual(named("small", "large"));
  });

  it("compares strings as strings and matches equality by containment, nested paths and booleans included", async () => {
    expect(await found(member, "expense_id = E-1")).toEqual(named("small"));
    expect(await found(member, `amount = "900"`)).toEqual(named("stringAmount"));
    expect(await found(member, "amount = 900")).toEqual([]);
    expect(await found(member, `amount > "1"`)).toEqual(named("stringAmount", "wordAmount"));
    expect(await found(member, "meta.region = eu")).toEqual(named("large"));
    expect(await found(member, "urgent = true")).toEqual(named("wordAmount"));
    // != needs the field: the run without an amount is not "amount != 5".
    expect(await found(member, "amount != 5")).toEqual(named("large", "stringAmount", "wordAmount"));
  });

  it("scopes a member to its tenants; an admin sees every tenant", async () => {
    expect(await found(member, "expense_id = E-1")).toEqual(named("small"));
    expect(await found(admin, "expense_id = E-1")).toEqual(named("small", "foreign"));
    expect(await found(admin, "amount > 100")).toEqual(named("large", "foreign"));
  });

  it("keeps injection attempts inert: values are parameters, and SQL text as a field name is refused", async () => {
    expect(await found(admin, `expense_id = "E-1' OR '1'='1"`)).toEqual([]);
    expect(await found(admin, `expense_id = "x\\"}'); DELETE FROM runs; --"`)).toEqual([]);
    const refused = await search(admin, { input: "amount = 1; DELETE FROM runs" });
    expect(refused.items).toEqual([]);
    expect(refused.inputFilterError).toBe('value "1;" needs quotes');
    expect((await search(admin, { input: "amount > 1 or 1 = 1" })).inputFilterError).toMatch(/only "and"/);
    const [count] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM runs`;
    expect(count?.n).toBe(6);
  });

  it("serves equality from the jsonb_path_ops GIN index", async () => {
    const plan = await sql.begin(async (tx) => {
      await tx`SET LOCAL enable_seqscan = off`;
      return tx.unsafe(`EXPLAIN SELECT id FROM runs r WHERE r.input @> $1::text::jsonb`, ['{"expense_id":"E-1"}']);
    });
    expect(plan.map((row) => Object.values(row)[0]).join("\n")).toContain("runs_input_path_idx");
  });

  it("keeps keyset pages exact under the filter", async () => {
    const tenant = await makeTenant(sql, "search-pages");
    const wanted = new Set<string>();
    for (let i = 0; i < TASK_PAGE_SIZE + 5; i++) {
      wanted.add(await newRun(tenant.id, { amount: 200 + i }));
      await newRun(tenant.id, { amount: 1 });
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await search(admin, { tenant: tenant.id, input: "amount >= 200", ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((t) => t.id));
      cursor = page.next;
    } while (cursor);
    expect(seen).toHaveLength(wanted.size);
    expect(new Set(seen)).toEqual(wanted);
  });
});

describe("the task list's answered-by filter", () => {
  it("finds runs by the actor label or by an operator's email mapped to operator:<id>", async () => {
    await sql`INSERT INTO run_inputs (run_id, key, request, response, answered_by, answered_at)
              VALUES (${ids.large as string}, 'decision', '{}'::jsonb, '{"decision":"approve"}'::jsonb, ${`operator:${member.id}`}, now()),
                     (${ids.small as string}, 'decision', '{}'::jsonb, NULL, NULL, NULL),
                     (${ids.foreign as string}, 'decision', '{}'::jsonb, '{}'::jsonb, ${`operator:${member.id}`}, now())`;
    const by = async (operator: Operator, answered: string, input = "") =>
      (await search(operator, { answered, input })).items.map((t) => t.id).sort();
    expect(await by(member, member.email)).toEqual(named("large"));
    expect(await by(member, member.email.toUpperCase())).toEqual(named("large"));
    expect(await by(admin, `operator:${member.id}`)).toEqual(named("large", "foreign"));
    expect(await by(admin, `operator:${member.id}`, "amount > 600")).toEqual(named("foreign"));
    expect(await by(admin, "nobody@ops.test")).toEqual([]);
  });
});
