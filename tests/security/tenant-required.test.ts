import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import {
  cancelRunAsAdmin,
  cancelRunForTenant,
  createRun,
  provideInputAsAdmin,
  provideInputForTenant,
  sendSignalAsAdmin,
  sendSignalForTenant,
} from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeKey } from "../../lib/admin";
import { freshDatabase } from "../helpers/db";

/** The admin (any-tenant) forms of tenant-scoped operations: for the CLI only (L10). */
const ADMIN_FORMS = [
  /\brevokeKeyAsAdmin\b/,
  /\brevokeApiKeyAsAdmin\b/,
  /\brevokeApiKey\b(?!ForTenant)/,
  /\bcancelRunAsAdmin\b/,
  /\bprovideInputAsAdmin\b/,
  /\bsendSignalAsAdmin\b/,
  // The deprecated optional-tenant forms (no tenant meant every tenant), called or imported.
  /\b(cancelRun|provideInput|sendSignal)\s*\(/,
  /import[^;]*\b(cancelRun|provideInput|sendSignal)\b[^;]*from/,
];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sources(file);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith(".test.ts") ? [file] : [];
  });
}

describe("tenant-required operations (L10)", () => {
  // lib/tasks is the layer all three call the engine through.
  it.each(["lib/mcp", "lib/ui", "lib/http-api", "lib/tasks"])("%s never calls an admin form", (dir) => {
    const offenders = sources(path.join(process.cwd(), dir)).flatMap((file) => {
      const text = readFileSync(file, "utf8");
      return ADMIN_FORMS.filter((pattern) => pattern.test(text)).map((pattern) => `${file}: ${pattern}`);
    });
    expect(offenders).toEqual([]);
  });

  it("the tenant-scoped key revocation refuses a missing tenant (before: it fell back to every tenant)", async () => {
    const sql = {} as never; // refused while parsing, before any query
    await expect(revokeKey({ sql, actor: { kind: "seed" } }, { keyId: "0123456789abcdef" } as never)).rejects.toMatchObject({
      code: "bad_request",
    });
  });
});

describe("the engine's tenant-scoped operations (L10)", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let sql: postgres.Sql;
  let tenantA: string;
  let tenantB: string;
  let run: string;

  beforeAll(async () => {
    db = await freshDatabase();
    sql = db.sql;
    [tenantA, tenantB] = [randomUUID(), randomUUID()];
    for (const id of [tenantA, tenantB])
      await sql`INSERT INTO tenants (id, slug, name) VALUES (${id}, ${`l10-${id.slice(0, 8)}`}, 'L10')`;
    run = (await createRun(sql, { tenantId: tenantA, workflowName: "generate-report", workflowVersion: 1, input: {} })).id;
  });
  afterAll(async () => {
    await db.drop();
  });

  const status = async (id: string) => (await sql<{ status: string }[]>`SELECT status FROM runs WHERE id = ${id}`)[0]?.status;
  const answer = { confirm: { action: "accept" as const } };

  it.each([undefined, ""])("refuses a missing tenant (%j) before any query", async (tenantId) => {
    const noStore = {} as never; // any query would throw a different error
    const forTenant = { runId: run, tenantId } as never;
    await expect(cancelRunForTenant(noStore, forTenant)).rejects.toThrow(
      /cancelRunForTenant: tenantId is required.*cancelRunAsAdmin/,
    );
    await expect(
      provideInputForTenant(noStore, { ...(forTenant as object), responses: answer, actor: "t" } as never),
    ).rejects.toThrow(/provideInputForTenant: tenantId is required/);
    await expect(sendSignalForTenant(noStore, { ...(forTenant as object), name: "go" } as never)).rejects.toThrow(
      /sendSignalForTenant: tenantId is required/,
    );
    expect(await status(run)).toBe("queued");
  });

  it("answers another tenant's run exactly like an unknown one, and leaves it alone", async () => {
    const unknown = randomUUID();
    expect(await cancelRunForTenant(sql, { runId: run, tenantId: tenantB })).toEqual(
      await cancelRunForTenant(sql, { runId: unknown, tenantId: tenantB }),
    );
    expect(await cancelRunForTenant(sql, { runId: run, tenantId: tenantB })).toEqual({ outcome: "not_found" });
    const foreignAnswer = await provideInputForTenant(sql, { runId: run, tenantId: tenantB, responses: answer, actor: "t" });
    expect(foreignAnswer).toEqual(
      await provideInputForTenant(sql, { runId: unknown, tenantId: tenantB, responses: answer, actor: "t" }),
    );
    expect(foreignAnswer).toEqual({ found: false, accepted: [], resumed: false });
    const foreignSignal = await sendSignalForTenant(sql, { runId: run, tenantId: tenantB, name: "go" });
    expect(foreignSignal).toBe(await sendSignalForTenant(sql, { runId: unknown, tenantId: tenantB, name: "go" }));
    expect(foreignSignal).toBe(false);
    expect(await status(run)).toBe("queued");
    expect(Number((await sql`SELECT count(*) AS n FROM run_signals WHERE run_id = ${run}`)[0]?.n)).toBe(0);
  });

  it("acts for the run's own tenant, and the admin forms act on any tenant's run", async () => {
    expect(await sendSignalForTenant(sql, { runId: run, tenantId: tenantA, name: "go" })).toBe(true);
    expect(await provideInputForTenant(sql, { runId: run, tenantId: tenantA, responses: answer, actor: "t" })).toMatchObject({
      found: true,
    });
    const other = (await createRun(sql, { tenantId: tenantB, workflowName: "generate-report", workflowVersion: 1, input: {} }))
      .id;
    expect(await sendSignalAsAdmin(sql, { runId: other, name: "go" })).toBe(true);
    expect(await provideInputAsAdmin(sql, { runId: other, responses: answer, actor: "t" })).toMatchObject({ found: true });
    expect(await cancelRunAsAdmin(sql, { runId: other })).toEqual({ outcome: "cancelled" });
    expect(await cancelRunForTenant(sql, { runId: run, tenantId: tenantA })).toEqual({ outcome: "cancelled" });
  });
});
