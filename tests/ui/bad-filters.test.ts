import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireOperator } from "../../lib/auth";
import { handleAuditCsv } from "../../lib/ui/handlers/audit-handlers";
import { handleTaskList } from "../../lib/ui/handlers/task-handlers";
import { presentAuditPage } from "../../lib/ui/presenters/audit";
import { freshDatabase } from "../helpers/db";
import { contextFor, makeOperator } from "./helpers";

// Review F11: U+0000 in a console filter reached PostgreSQL (which cannot store or compare it in
// text) and came back as a 500, or as a CSV cut off after its header whose audit.export event was
// lost. It is a bad request: 400, or the filter's own error message on the page.

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let adminId: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  adminId = (await makeOperator(sql, "admin")).id;
});
afterAll(async () => {
  await db.drop();
});

const NUL = "\u0000";

describe("NUL in console filters (review F11)", () => {
  it("the task list answers 400 for NUL in the input filter or any other filter", async () => {
    for (const [name, value] of [
      ["input", `a="${NUL}"`],
      ["answered", `x${NUL}`],
      ["tool", `t${NUL}`],
      ["q", `0${NUL}`],
    ]) {
      const url = new URL("http://console.test/api/ui/tasks");
      url.searchParams.set(name as string, value as string);
      const response = await handleTaskList(contextFor(sql, adminId), new Request(url));
      expect([name, response.status]).toEqual([name, 400]);
    }
  });

  it("the audit CSV answers 400 before any byte and stores no export event; the Audit page shows the filter's error", async () => {
    for (const name of ["actor", "action"]) {
      const url = new URL("http://console.test/api/ui/audit.csv");
      url.searchParams.set(name, `a${NUL}b`);
      const response = await handleAuditCsv(contextFor(sql, adminId), new Request(url));
      expect([name, response.status]).toEqual([name, 400]);
    }
    expect(await sql`SELECT 1 FROM audit_events WHERE action = 'audit.export'`).toHaveLength(0);
    const view = await presentAuditPage(
      sql,
      await requireOperator(contextFor(sql, adminId)),
      new URLSearchParams({ actor: NUL }),
    );
    expect(view.error).toMatch(/U\+0000/);
  });
});
