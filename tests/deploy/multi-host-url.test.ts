import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDb, createRuntimeLogins, parseConnectionUrl } from "@runifold/store";
import { type EmbeddedPostgres, freePort, startEmbeddedPostgres } from "@runifold/store/embedded";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineStore } from "../engine/support/harness";
import { chargeLoop } from "../fixtures/engine-workflows";
import { ROOT, spawnTs, waitForExit } from "../helpers/processes";

/**
 * DATABASE_URL naming several hosts (issue 35; DESIGN §8 "Database"): the way a client finds the
 * primary after a failover without a DNS change. Three hosts in one URL — a closed port (a dead
 * machine), a read-only server (what a standby answers: default_transaction_read_only on, which is
 * what target_session_attrs=read-write tests) and the real store — and every entry point that takes
 * the URL (the worker, its migrate command, the pools, the runtime-role job) must land on the store.
 */
const store = engineStore();
let readOnly: EmbeddedPostgres;
let dataRoot: string;
let multiUrl: string;
let deadPort: number;
/** The read-only server as the store's login (whose password beforeAll sets there). */
let readOnlyAdminUrl: string;

beforeAll(async () => {
  dataRoot = mkdtempSync(path.join(tmpdir(), "rf-multihost-"));
  readOnly = await startEmbeddedPostgres({ projectRoot: ROOT, dataRoot, name: "standby-like" });
  const { user, password, rest } = parseConnectionUrl(store.url);
  const database = rest.replace(/^\/([^?]*).*$/s, "$1");
  const admin = postgres(readOnly.url, { max: 1, onnotice: () => {} });
  try {
    // The same database name on the read-only server, so only its read-only state can turn a client away.
    await admin.unsafe(`CREATE DATABASE "${database}"`);
    // The store's login, with the store's password, so only the read-only state can turn a client away.
    const login = decodeURIComponent(user);
    const [exists] = await admin`SELECT 1 FROM pg_roles WHERE rolname = ${login}`;
    await admin.unsafe(
      `${exists ? "ALTER" : "CREATE"} ROLE "${login}" LOGIN PASSWORD '${decodeURIComponent(password).replaceAll("'", "''")}'`,
    );
    await admin.unsafe("ALTER SYSTEM SET default_transaction_read_only = on");
    await admin.unsafe("SELECT pg_reload_conf()");
  } finally {
    await admin.end({ timeout: 5 });
  }
  deadPort = await freePort();
  const port = (url: string) => parseConnectionUrl(url).hosts[0];
  readOnlyAdminUrl = `postgres://${user}${password ? `:${password}` : ""}@${port(readOnly.url)}/postgres`;
  multiUrl = `postgres://${user}${password ? `:${password}` : ""}@127.0.0.1:${deadPort},${port(readOnly.url)},${port(store.url)}/${database}?target_session_attrs=read-write`;
}, 120_000);

afterAll(async () => {
  await readOnly?.stop();
  if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
});

const landedOn = async (url: string) => {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ port: number; user: string; ro: string }[]>`
      SELECT current_setting('port')::int AS port, current_user AS "user", current_setting('transaction_read_only') AS ro`;
    return row;
  } finally {
    await sql.end({ timeout: 5 });
  }
};

describe("a multi-host DATABASE_URL with target_session_attrs=read-write", () => {
  it("connects past a dead host and a read-only one to the store; without the attribute it stops at the read-only one", async () => {
    const storePort = Number(parseConnectionUrl(store.url).hosts[0]?.split(":")[1]);
    expect(await landedOn(multiUrl)).toMatchObject({ port: storePort, ro: "off" });
    // What the attribute is for: the first reachable host answers, and it refuses every write.
    const withoutAttribute = multiUrl.replace("?target_session_attrs=read-write", "");
    expect(await landedOn(withoutAttribute)).toMatchObject({ ro: "on" });
    const { sql } = createDb(multiUrl, { max: 2, name: "multi-host-test" });
    try {
      const [row] = await sql<
        { n: number }[]
      >`INSERT INTO tenants (slug, name) VALUES ('multi-host', 'Multi host') RETURNING 1 AS n`;
      expect(row?.n).toBe(1);
    } finally {
      await sql.end({ timeout: 5 });
    }
  });

  it("runs the worker's migrate command and a worker on it: the run completes on the store", async () => {
    const migrate = spawnTs("packages/sdk/src/bin/runifold-worker.ts", { DATABASE_URL: multiUrl }, ["migrate"]);
    expect(await waitForExit(migrate, 60_000), migrate.output()).toBe(0);
    const worker = spawnTs("tests/helpers/test-worker-process.ts", { DATABASE_URL: multiUrl, RUNIFOLD_POLL_MS: "200" });
    try {
      const run = await store.create(chargeLoop, { n: 3, slowAt: 0, slowMs: 0 });
      await store.waitForStatus(run.id, "completed", 30_000);
    } finally {
      worker.kill("SIGTERM");
      await waitForExit(worker);
    }
  });

  it("makes runtime logins whose URLs keep every host and reach the store as that login", async () => {
    const { sql } = createDb(multiUrl, { max: 1, name: "multi-host-roles" });
    try {
      const { logins } = await createRuntimeLogins(sql, { ownerUrl: multiUrl, kinds: ["worker"] });
      const login = logins[0];
      if (!login) throw new Error("no login made");
      expect(parseConnectionUrl(login.url).hosts).toEqual(parseConnectionUrl(multiUrl).hosts);
      // A standby has the primary's roles by replication; this stand-in gets the login by hand.
      const admin = postgres(readOnlyAdminUrl, { max: 1, onnotice: () => {} });
      try {
        await admin.unsafe("SET default_transaction_read_only = off");
        await admin.unsafe(`CREATE ROLE "${login.user}" LOGIN PASSWORD '${login.password}'`);
      } finally {
        await admin.end({ timeout: 5 });
      }
      expect(await landedOn(login.url)).toMatchObject({ user: login.user, ro: "off" });
    } finally {
      await sql.end({ timeout: 5 });
    }
  });

  it("names every host and never the password when none of them answers", async () => {
    const secret = "no-such-password-1234";
    const dead = `postgres://postgres:${secret}@127.0.0.1:${deadPort},127.0.0.1:${await freePort()}/app?target_session_attrs=read-write`;
    const worker = spawnTs("packages/sdk/src/bin/runifold-worker.ts", { DATABASE_URL: dead }, [
      "--workflows",
      "tests/fixtures/engine-workflows.ts",
    ]);
    expect(await waitForExit(worker, 60_000).catch(() => worker.output())).not.toBe(0);
    expect(worker.output()).toContain(`127.0.0.1:${deadPort},127.0.0.1:`);
    expect(worker.output()).not.toContain(secret);
  });
});
