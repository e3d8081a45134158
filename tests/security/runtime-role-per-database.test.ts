import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRuntimeLogins, MIGRATIONS_DIR, migrate, type RuntimeLogin, withUser } from "@runifold/store";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { withDatabase } from "../helpers/global-setup";

/**
 * Review 3, F3: two Runifold databases on one server (staging and production, or one per customer).
 * Each has its own runtime role (migration 0035), so a login of deployment A cannot even connect to
 * deployment B's database, where the cluster-wide runifold_runtime of 0020 let it read and write all.
 */
const suffix = `${process.pid}_${Date.now().toString(36)}`;
const databases = { a: `rf_dep_a_${suffix}`, b: `rf_dep_b_${suffix}`, old: `rf_dep_old_${suffix}` };
let admin: postgres.Sql;
const loginsOf: Record<string, RuntimeLogin[]> = {};
const opened: postgres.Sql[] = [];
const legacyLogin = `rf_legacy_${suffix}`;
const scratch: string[] = [];

/** A fresh database migrated by the superuser, as the migrate job does; `upTo` stops at that tag. */
async function migrated(name: string, upTo?: string): Promise<postgres.Sql> {
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const sql = postgres(withDatabase(inject("adminDatabaseUrl"), name), { max: 1, onnotice: () => {} });
  opened.push(sql);
  await migrate(sql, upTo ? truncatedMigrations(upTo) : undefined);
  return sql;
}

/** A copy of the migrations whose journal ends at `tag`: a database as an earlier release left it. */
function truncatedMigrations(tag: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), "rf-migrations-"));
  scratch.push(dir);
  cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  const file = path.join(dir, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(file, "utf8")) as { entries: { tag: string }[] };
  const last = journal.entries.findIndex((entry) => entry.tag === tag);
  journal.entries = journal.entries.slice(0, last + 1);
  writeFileSync(file, JSON.stringify(journal));
  return dir;
}

/** Connects and runs one query as `url`; the SQLSTATE it fails with, or "ok". */
async function attempt(url: string, query = "SELECT count(*) FROM operators"): Promise<string> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    await sql.unsafe(query);
    return "ok";
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  } finally {
    await sql.end({ timeout: 2 });
  }
}

beforeAll(async () => {
  admin = postgres(inject("adminDatabaseUrl"), { max: 1, onnotice: () => {} });
  for (const key of ["a", "b"] as const) {
    const sql = await migrated(databases[key]);
    const { logins } = await createRuntimeLogins(sql, { ownerUrl: withDatabase(inject("adminDatabaseUrl"), databases[key]) });
    loginsOf[key] = logins;
  }
}, 120_000);

afterAll(async () => {
  for (const sql of opened) await sql.end({ timeout: 5 });
  for (const name of Object.values(databases)) await admin?.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  const roles = [...Object.values(loginsOf).flatMap((logins) => logins.map((l) => l.user)), legacyLogin];
  for (const name of Object.values(databases)) roles.push(`runifold_rt_${name}`, `runifold_wk_${name}`);
  for (const role of roles) await admin?.unsafe(`DROP ROLE IF EXISTS ${role}`);
  await admin?.end();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

describe("one runtime role per database (F3)", () => {
  it("names the roles after the database and gives neither login superuser, BYPASSRLS or CREATEROLE", async () => {
    const users = (loginsOf.a ?? []).map((login) => login.user);
    expect(users).toEqual([`runifold_web_${databases.a}`, `runifold_worker_${databases.a}`]);
    const rows = await admin<{ rolname: string; bad: boolean; rt: boolean; wk: boolean }[]>`
      SELECT r.rolname, (r.rolsuper OR r.rolbypassrls OR r.rolcreaterole OR r.rolcreatedb) AS bad,
             pg_has_role(r.rolname, ${`runifold_rt_${databases.a}`}, 'MEMBER') AS rt,
             pg_has_role(r.rolname, ${`runifold_wk_${databases.a}`}, 'MEMBER') AS wk
      FROM pg_roles r WHERE r.rolname = ANY(${users}) ORDER BY 1`;
    expect(rows.map((row) => ({ ...row }))).toEqual([
      { rolname: users[0], bad: false, rt: true, wk: false },
      { rolname: users[1], bad: false, rt: false, wk: true },
    ]);
  });

  it("lets deployment A's web and worker logins work in A's database, and not connect to B's", async () => {
    for (const login of loginsOf.a ?? []) {
      expect(await attempt(login.url), login.user).toBe("ok");
      // 42501: permission denied for database (today's cluster-wide role answered with rows).
      expect(await attempt(withDatabase(login.url, databases.b)), login.user).toBe("42501");
    }
    for (const login of loginsOf.b ?? []) expect(await attempt(withDatabase(login.url, databases.a)), login.user).toBe("42501");
  });

  it("takes CONNECT from PUBLIC, and gives the old cluster-wide role nothing on a new database", async () => {
    const [acl] = await admin<{ public: boolean; legacy: boolean | null }[]>`
      SELECT has_database_privilege('public', ${databases.a}, 'CONNECT') AS public,
             (SELECT has_database_privilege(oid, ${databases.a}, 'CONNECT') FROM pg_roles WHERE rolname = 'runifold_runtime') AS legacy`;
    expect(acl?.public).toBe(false);
    expect(acl?.legacy ?? false).toBe(false);
  });

  it("keeps an upgraded deployment's runifold_runtime members working until the owner revokes the old role", async () => {
    const owner = await migrated(databases.old, "0034_approval_webhook_events");
    await admin.unsafe(`DO $$ BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'runifold_runtime') THEN CREATE ROLE runifold_runtime NOLOGIN; END IF;
    END $$`);
    await owner`SELECT runifold_grant_runtime()`;
    await admin.unsafe(`CREATE ROLE ${legacyLogin} LOGIN PASSWORD 'legacy-pw' IN ROLE runifold_runtime`);
    const url = withUser(withDatabase(inject("adminDatabaseUrl"), databases.old), legacyLogin, "legacy-pw");
    expect(await attempt(url)).toBe("ok");

    expect((await migrate(owner)).applied).toContain("0035_runtime_role_per_database");
    expect(await attempt(url)).toBe("ok"); // still works after the upgrade
    expect(await attempt(url, "INSERT INTO tenants (slug, name) VALUES ('legacy', 'legacy')")).toBe("ok");

    expect((await owner`SELECT runifold_revoke_legacy_runtime() AS ok`)[0]?.ok).toBe(true);
    expect(await attempt(url)).toBe("42501");
  });
});
