import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import path from "node:path";
import { type EmbeddedPostgres, freePort, startEmbeddedPostgres } from "@runifold/store/embedded";
import postgres from "postgres";
import { sweepAbandonedClusters } from "./abandoned-clusters";
import { type Log, prepareDatabase, Supervisor } from "./stack";

/**
 * The one way test suites bring up the real stack: Playwright's global setup (e2e/global-setup.ts),
 * the conformance run (scripts/run-conformance.ts) and any command under scripts/with-stack.ts.
 *
 * A fresh database (on TEST_DATABASE_URL, or on an embedded PostgreSQL of this process's own, so two
 * runs on one machine never stop each other's server), migrated and demo-seeded; `next start` on a
 * free port and `workers` worker processes, ready once GET /api/health answers 200 with every worker
 * online. Needs a production build (`next build`).
 */
export type TestStack = {
  /** The app's origin, e.g. http://127.0.0.1:41234. */
  origin: string;
  /** The stack's migrated, seeded database. */
  databaseUrl: string;
  /** The environment the web and worker processes run with. */
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
};

export type TestStackOptions = {
  projectRoot: string;
  /** Names the database and the embedded cluster: `e2e`, `conformance`. */
  label: string;
  workers: number;
  /** Extra environment for web and workers (e.g. RUNIFOLD_INSECURE_LOOPBACK_TENANT). */
  env?: Record<string, string>;
  log: Log;
};

/** `next start` may lose the free port it was given to another process; a new port is tried this often. */
const START_ATTEMPTS = 3;

export async function startTestStack(options: TestStackOptions): Promise<TestStack> {
  const { projectRoot, label, log } = options;
  const dataRoot = path.join(projectRoot, ".data");
  const clusterName = `${label}-pg-${process.pid}`;
  const dbName = `runifold_${label}_${randomBytes(4).toString("hex")}`;
  let embedded: EmbeddedPostgres | undefined;
  let adminUrl = process.env.TEST_DATABASE_URL;
  let supervisor: Supervisor | undefined;
  let created = false;

  const stop = async () => {
    await supervisor?.stop(15_000);
    if (adminUrl && created) await dropDatabase(adminUrl, dbName).catch(() => {});
    if (embedded) {
      await embedded.stop();
      rmSync(embedded.dataDir, { recursive: true, force: true });
      for (const suffix of ["embedded.json", "password", "log"])
        rmSync(path.join(dataRoot, `${clusterName}.${suffix}`), { force: true });
    }
  };

  try {
    if (!adminUrl) {
      await sweepAbandonedClusters(dataRoot, `${label}-pg`, log);
      embedded = await startEmbeddedPostgres({ projectRoot, dataRoot, name: clusterName, detached: true, log });
      adminUrl = embedded.url;
    }
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`CREATE DATABASE ${dbName}`);
      created = true;
    } finally {
      await admin.end();
    }
    const url = new URL(adminUrl);
    url.pathname = `/${dbName}`;
    // The suites expect the demo tenants and the conformance fixtures, whatever RUNIFOLD_SEED's
    // default for a DATABASE_URL is (npm start seeds the showcase only).
    const db = await prepareDatabase({
      projectRoot,
      dataRoot,
      databaseUrl: url.toString(),
      embeddedName: clusterName,
      log,
      seed: "demo",
      conformanceFixtures: true,
    });

    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATABASE_URL: db.url,
        NEXTAUTH_SECRET: randomBytes(24).toString("hex"),
        NEXTAUTH_URL: `http://127.0.0.1:${port}`,
        // OAuth is on only with a public URL: the stack's own origin, as a deployment's would be.
        RUNIFOLD_PUBLIC_URL: `http://127.0.0.1:${port}`,
        RUNIFOLD_LOG_LEVEL: process.env.RUNIFOLD_LOG_LEVEL ?? "warn",
        // The suites sign admins in with a password alone; the MFA suites enrol their own operators
        // (tests/security/mfa.test.ts checks the required-enrolment rule, e2e/mfa.spec.ts the pages).
        RUNIFOLD_ADMIN_MFA: "optional",
        ...options.env,
      };
      supervisor = new Supervisor({ projectRoot, host: "127.0.0.1", port, workers: options.workers, env, log });
      supervisor.start();
      try {
        await supervisor.waitHealthy(120_000, (health) => workersOnline(health) >= options.workers);
        return { origin: supervisor.origin, databaseUrl: db.url, env, stop };
      } catch (error) {
        await supervisor.stop(5_000);
        supervisor = undefined;
        if (attempt >= START_ATTEMPTS) throw error;
        log(`the stack did not come up on port ${port} (${(error as Error).message}); trying another port`);
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
}

function workersOnline(health: unknown): number {
  const online = (health as { workers?: { online?: unknown } } | undefined)?.workers?.online;
  return typeof online === "number" ? online : 0;
}

async function dropDatabase(adminUrl: string, name: string) {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
