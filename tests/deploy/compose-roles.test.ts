import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "@runifold/store/embedded";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { runMigrateJob } from "../../scripts/lib/migrate-job";
import { Supervisor } from "../../scripts/lib/stack";
import { ROOT } from "../helpers/processes";
import { composeEnvironment, emptyDatabase } from "./support";

// Review 3, F4, from compose.yaml's settings (no container runtime here): the migrate job with the
// `migrate` service's environment creates the runtime logins; a web process and a worker with the
// `web` and `worker` services' DATABASE_URLs (only host, port and database swapped for this test's)
// then run, and pg_stat_activity shows no superuser or BYPASSRLS backend of theirs.

const passwords = {
  RUNIFOLD_WEB_DB_PASSWORD: "compose-web-password-0123",
  RUNIFOLD_WORKER_DB_PASSWORD: "compose-worker-pw-0123",
};
const raw = parse(readFileSync(path.join(ROOT, "compose.yaml"), "utf8")) as {
  services: Record<string, { environment?: Record<string, string> }>;
};
let db: Awaited<ReturnType<typeof emptyDatabase>>;
let supervisor: Supervisor | undefined;
let dataRoot: string;

/** A service's DATABASE_URL as compose writes it, for this test's server: its user, and the password its variable holds. */
function serviceUrl(service: string): string {
  const match = /^postgres:\/\/([^:]+):\$\{([A-Z_]+)[^}]*\}@[^/]+\/([\w-]+)$/.exec(
    raw.services[service]?.environment?.DATABASE_URL ?? "",
  );
  if (!match) throw new Error(`compose.yaml: ${service}'s DATABASE_URL is not postgres://user:\${VAR…}@host/db`);
  const [, user = "", variable = "", composeDb = ""] = match;
  const ours = new URL(db.url);
  const database = ours.pathname.slice(1);
  // runifold_web_runifold → runifold_web_<this test's database>: the login is named after its database.
  expect(user.endsWith(`_${composeDb}`)).toBe(true);
  ours.username = `${user.slice(0, -composeDb.length)}${database}`;
  ours.password = passwords[variable as keyof typeof passwords] ?? "";
  return ours.toString();
}

beforeAll(async () => {
  db = await emptyDatabase("compose_roles");
  dataRoot = mkdtempSync(path.join(os.tmpdir(), "rf-compose-roles-"));
});

afterAll(async () => {
  await supervisor?.stop(10_000);
  await db?.drop();
  if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
});

describe("compose.yaml's database roles, run from source", () => {
  it("web and worker connect as the logins the migrate job made, never as a superuser", async () => {
    const migrate = { ...composeEnvironment("migrate"), ...passwords };
    const written: string[] = [];
    await runMigrateJob({
      url: db.url, // compose's `runifold` (POSTGRES_USER, a superuser), here the test server's superuser
      seed: "off",
      runtimePasswords: { web: migrate.RUNIFOLD_WEB_DB_PASSWORD, worker: migrate.RUNIFOLD_WORKER_DB_PASSWORD },
      dataRoot,
      isTTY: false,
      write: (line) => written.push(line),
    });
    expect(written.filter((line) => line.startsWith("runtime login "))).toHaveLength(2);

    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const common = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      NEXTAUTH_SECRET: "compose-roles-secret-0123456789",
      RUNIFOLD_LOG_LEVEL: "warn",
      NODE_ENV: "production" as const,
    };
    const web = {
      ...composeEnvironment("web"),
      ...common,
      DATABASE_URL: serviceUrl("web"),
      RUNIFOLD_PUBLIC_URL: origin,
      NEXTAUTH_URL: origin,
    };
    // The image's module path does not exist here: the demo module, as `npm start` serves it.
    const worker = { ...composeEnvironment("worker"), ...common, DATABASE_URL: serviceUrl("worker"), RUNIFOLD_WORKFLOWS: "" };
    supervisor = new Supervisor({
      projectRoot: ROOT,
      host: "127.0.0.1",
      port,
      workers: 1,
      env: web,
      workerEnv: worker,
      log: () => {},
    });
    supervisor.start();
    await supervisor.waitHealthy(120_000, (health) => (health as { workers?: { online?: number } }).workers?.online === 1);

    const backends = await db.sql<{ role: string; app: string; super: boolean; bypass: boolean }[]>`
      SELECT r.rolname AS role, a.application_name AS app, r.rolsuper AS super, r.rolbypassrls AS bypass
      FROM pg_stat_activity a JOIN pg_roles r ON r.oid = a.usesysid
      WHERE a.datname = current_database() AND a.backend_type = 'client backend'
        AND (a.application_name LIKE 'runifold-web%' OR a.application_name LIKE 'runifold-worker%')`;
    const database = new URL(db.url).pathname.slice(1);
    expect(backends.filter((b) => b.super || b.bypass)).toEqual([]);
    expect(new Set(backends.map((b) => b.role))).toEqual(new Set([`runifold_web_${database}`, `runifold_worker_${database}`]));
  }, 180_000);
});
