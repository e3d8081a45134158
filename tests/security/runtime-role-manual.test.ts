import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRun, provideInputForTenant } from "@runifold/sdk";
import { migrate } from "@runifold/store";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "@runifold/store/embedded";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * Migrations 0020 and 0035 on a server where the roles do not exist and the migrator may not create them (a
 * managed database): it applies with a NOTICE, the app keeps working as the owner, and the manual
 * steps of docs/deploy.md ("Database roles") then give a working runtime role. A server of its own
 * (roles are per server; the shared one already has them).
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
let server: EmbeddedPostgres;
let dataRoot: string;
let superuser: postgres.Sql;

const withUser = (url: string, user: string, password: string, database = "app") => {
  const parsed = new URL(url);
  parsed.username = user;
  parsed.password = password;
  parsed.pathname = `/${database}`;
  return parsed.toString();
};

beforeAll(async () => {
  dataRoot = mkdtempSync(path.join(tmpdir(), "rf-m7-"));
  server = await startEmbeddedPostgres({ projectRoot: ROOT, dataRoot, name: "m7" });
  superuser = postgres(server.url, { max: 1, onnotice: () => {} });
  await superuser.unsafe("CREATE ROLE owner LOGIN PASSWORD 'owner' NOCREATEROLE");
  await superuser.unsafe("CREATE DATABASE app OWNER owner");
});

afterAll(async () => {
  await superuser?.end({ timeout: 5 });
  await server?.stop();
  if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
});

describe("migrations 0020 and 0035 without CREATEROLE and without the roles (M7)", () => {
  it("applies with a NOTICE, keeps the owner working, and the documented manual steps finish the job", async () => {
    const notices: string[] = [];
    const owner = postgres(withUser(server.url, "owner", "owner"), { max: 2, onnotice: (n) => notices.push(String(n.message)) });
    try {
      await migrate(owner);
      expect(notices.join("\n")).toMatch(/runifold_rt_app does not exist and owner may not create it/);
      expect((await superuser`SELECT count(*)::int AS n FROM pg_roles WHERE rolname LIKE 'runifold_%'`)[0]?.n).toBe(0);
      // The app as the owner, as before.
      const [tenant] = await owner<{ id: string }[]>`INSERT INTO tenants (slug, name) VALUES ('m', 'm') RETURNING id`;
      const tenantId = tenant?.id as string;
      const run = await createRun(owner, { tenantId, workflowName: "m7", workflowVersion: 1, input: {} });
      expect((await provideInputForTenant(owner, { runId: run.id, tenantId, responses: {}, actor: "t" })).found).toBe(true);

      // docs/deploy.md, as an administrator, then as the owner.
      await superuser.unsafe(`CREATE ROLE runifold_rt_app NOLOGIN;
        CREATE ROLE m7_web LOGIN PASSWORD 'web' IN ROLE runifold_rt_app;`);
      expect((await owner`SELECT runifold_grant_runtime(runifold_runtime_role()) AS ok`)[0]?.ok).toBe(true);

      const web = postgres(withUser(server.url, "m7_web", "web"), { max: 1, onnotice: () => {} });
      try {
        const other = await createRun(web, { tenantId, workflowName: "m7", workflowVersion: 1, input: {} });
        expect((await provideInputForTenant(web, { runId: other.id, tenantId, responses: {}, actor: "t" })).found).toBe(true);
        expect((await web`SELECT count(*)::int AS n FROM runs`)[0]?.n).toBe(2);
        await expect(web`CREATE TABLE m7_probe (id int)`).rejects.toMatchObject({ code: "42501" });
        await expect(web`TRUNCATE audit_events`).rejects.toMatchObject({ code: "42501" });
      } finally {
        await web.end({ timeout: 5 });
      }
    } finally {
      await owner.end({ timeout: 5 });
    }
  });
});
