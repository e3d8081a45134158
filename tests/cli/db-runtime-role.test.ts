import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { freshDatabase } from "../helpers/db";
import { runCli } from "./run-cli";

// `runifold db create-runtime-role` (review 3, F3/F4): the login roles web and workers connect as,
// created by the owner after the migrations, with their DATABASE_URLs.
let db: Awaited<ReturnType<typeof freshDatabase>>;
let dir: string;
let name: string;
let admin: postgres.Sql;
const teamLogin = `rf_team_a_${process.pid}`;

beforeAll(async () => {
  db = await freshDatabase();
  name = new URL(db.url).pathname.slice(1);
  dir = mkdtempSync(path.join(tmpdir(), "rf-runtime-role-"));
  admin = postgres(inject("adminDatabaseUrl"), { max: 1, onnotice: () => {} });
});

afterAll(async () => {
  await db?.drop();
  await admin?.unsafe(`DROP ROLE IF EXISTS ${teamLogin}`);
  for (const kind of ["web", "worker", "rt", "wk"]) await admin?.unsafe(`DROP ROLE IF EXISTS runifold_${kind}_${name}`);
  await admin?.end();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The SQLSTATE connecting as `url` and reading operators fails with, or the role's rolsuper. */
async function probe(url: string): Promise<string> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [me] = await sql`SELECT rolsuper, (SELECT count(*) FROM operators) AS n FROM pg_roles WHERE rolname = current_user`;
    return `rolsuper=${me?.rolsuper}`;
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  } finally {
    await sql.end({ timeout: 2 });
  }
}

describe("runifold db create-runtime-role", { timeout: 120_000 }, () => {
  it("creates the web and worker logins and prints URLs that work; a second run rotates them into a 0600 file", async () => {
    const first = await runCli(["db", "create-runtime-role"], { DATABASE_URL: db.url });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`runifold_web_${name} (in runifold_rt_${name})`);
    const urls = Object.fromEntries(
      first.lines.filter((line) => line.includes("_DATABASE_URL=")).map((line) => line.split(/=(.*)/s).slice(0, 2)),
    );
    expect(Object.keys(urls).sort()).toEqual(["WEB_DATABASE_URL", "WORKER_DATABASE_URL"]);
    expect(new URL(urls.WEB_DATABASE_URL).username).toBe(`runifold_web_${name}`);
    expect(await probe(urls.WEB_DATABASE_URL)).toBe("rolsuper=false");
    expect(await probe(urls.WORKER_DATABASE_URL)).toBe("rolsuper=false");

    const verifier = async () =>
      (await admin`SELECT rolpassword FROM pg_authid WHERE rolname = ${`runifold_web_${name}`}`)[0]?.rolpassword as string;
    const before = await verifier();
    expect(before).toMatch(/^SCRAM-SHA-256\$4096:/);
    const file = path.join(dir, "runtime.env");
    const second = await runCli(["db", "create-runtime-role", "--kind", "web", "--out", file], { DATABASE_URL: db.url });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).not.toContain("postgres://");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const rotated = readFileSync(file, "utf8")
      .trim()
      .replace(/^WEB_DATABASE_URL=/, "");
    expect(await probe(rotated)).toBe("rolsuper=false");
    expect(await verifier()).not.toBe(before);
    // The old password no longer works (unless the server trusts local connections, as a CI server may).
    const wrong = new URL(urls.WEB_DATABASE_URL);
    wrong.password = "not-the-password";
    if ((await probe(wrong.toString())) === "28P01") expect(await probe(urls.WEB_DATABASE_URL)).toBe("28P01");
    expect(await probe(urls.WORKER_DATABASE_URL)).toBe("rolsuper=false"); // --kind web left the worker alone

    // A team's own workers: a login of their own in the workers' group, with its own URL.
    const team = await runCli(["db", "create-runtime-role", "--kind", "worker", "--login", teamLogin, "--json"], {
      DATABASE_URL: db.url,
    });
    expect(team.code, team.stderr).toBe(0);
    const [teamWorker] = JSON.parse(team.stdout).logins;
    expect(teamWorker).toMatchObject({ kind: "worker", user: teamLogin, group: `runifold_wk_${name}` });
    expect(await probe(teamWorker.url)).toBe("rolsuper=false");
    expect(await probe(urls.WORKER_DATABASE_URL)).toBe("rolsuper=false"); // the shared worker login is untouched
  });
});
