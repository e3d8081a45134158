import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../helpers/db";
import { lastJson, runCli } from "./run-cli";

/**
 * `runifold tenants set <slug> --max-concurrent-runs N|default` (docs/cli.md): a tenant's own cap on
 * its runs leased at once (claims honour it: tests/engine/tenant-capacity.test.ts).
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let env: Record<string, string>;

beforeAll(async () => {
  db = await freshDatabase();
  env = { DATABASE_URL: db.url };
});
afterAll(async () => {
  await db?.drop();
});

describe("tenants set --max-concurrent-runs", { timeout: 120_000 }, () => {
  it("sets a tenant's cap and returns it to the fleet's share, audited; anything else is a usage error", async () => {
    const created = lastJson(await runCli(["tenants", "create", "capped-co", "--json"], env));
    expect(created.max_concurrent_runs).toBeNull();

    const set = await runCli(["tenants", "set", "capped-co", "--max-concurrent-runs", "5", "--json"], env);
    expect(set.code).toBe(0);
    expect(lastJson(set)).toMatchObject({ slug: "capped-co", max_concurrent_runs: 5 });
    expect((await runCli(["tenants", "set", "capped-co", "--max-concurrent-runs", "default"], env)).stdout).toContain(
      "Tenant capped-co may hold the workers' share of the fleet's slots",
    );
    const [row] = await db.sql`SELECT max_concurrent_runs FROM tenants WHERE slug = 'capped-co'`;
    expect(row?.max_concurrent_runs).toBeNull();
    const audited = await db.sql`SELECT fields FROM audit_events WHERE action = 'tenant.max_concurrent_runs' ORDER BY id`;
    expect(audited.map((event) => event.fields.max)).toEqual([5, null]);

    for (const bad of ["0", "-1", "2.5", "lots", "10000000"])
      expect((await runCli(["tenants", "set", "capped-co", "--max-concurrent-runs", bad], env)).code, bad).toBe(4);
    expect((await runCli(["tenants", "set", "capped-co"], env)).code).toBe(4);
    expect((await runCli(["tenants", "set", "no-such-tenant", "--max-concurrent-runs", "3"], env)).code).not.toBe(0);
  });
});
