// `npm start`: database (embedded unless DATABASE_URL), migrations, seed (RUNIFOLD_SEED: demo on the
// embedded store, a first admin only with DATABASE_URL), build, web + workers.
// Ctrl-C / SIGTERM stops everything in order (workers and web drain, then Postgres); a second
// signal kills everything at once.
import path from "node:path";
import { type EmbeddedPostgres, resolveDataRoot } from "@runifold/store/embedded";
import { readEnv } from "../lib/env";
import { buildState } from "./lib/build-freshness";
import { runCommand, stopChildren, trackedChildren } from "./lib/children";
import { credentialLines, presentCredentials } from "./lib/first-run-credentials";
import { publishRepoDevFile } from "./lib/repo-dev-file";
import { handleShutdown } from "./lib/shutdown";
import { localOrigin, prepareDatabase, type SeedResult, Supervisor, stopPostgres } from "./lib/stack";
import { clearSupervisorState, loadOrCreateSecret, stopOrphans, writeSupervisorState } from "./lib/supervisor-state";

const log = (line: string) => process.stdout.write(`[runifold] ${line}\n`);
const root = process.cwd();

let env: ReturnType<typeof readEnv>;
try {
  env = readEnv();
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(2);
}
const dataRoot = resolveDataRoot(env, root);

let embedded: EmbeddedPostgres | undefined;
let supervisor: Supervisor | undefined;

const { shutdown, signals } = handleShutdown({
  log,
  async graceful() {
    await supervisor?.stop(15_000);
    await stopChildren(trackedChildren(), 5_000); // e.g. a build still running
    await stopPostgres(embedded);
    clearSupervisorState(dataRoot);
  },
  async fast() {
    await stopPostgres(embedded, true);
    clearSupervisorState(dataRoot);
  },
});

async function main() {
  await stopOrphans(dataRoot, log);

  const build = buildState(root);
  if (build.kind !== "fresh") {
    log(
      build.kind === "missing"
        ? "no production build yet: running next build once — it takes a few minutes (about 6–8 on 2 cores), printed below"
        : `${build.changed} changed since the last build: running next build again (a few minutes)`,
    );
    const code = await runCommand(process.execPath, [path.join(root, "node_modules", "next", "dist", "bin", "next"), "build"], {
      cwd: root,
    });
    if (signals() > 0) return;
    if (code !== 0) throw new Error(`next build failed (exit ${code})`);
  }

  const db = await prepareDatabase({
    projectRoot: root,
    dataRoot,
    databaseUrl: env.DATABASE_URL,
    embeddedName: "pg",
    log,
    onEmbedded: (pg) => {
      embedded = pg;
    },
    seed: env.RUNIFOLD_SEED,
    // Embedded: web and workers connect as the database's runtime logins, never as the cluster's
    // superuser (review 3, F4). With a DATABASE_URL of yours, they use that URL (docs/deploy.md).
    runtimeLogins: !env.DATABASE_URL,
  });
  if (db.applied.length > 0) log(`applied migrations: ${db.applied.join(", ")}`);
  if (signals() > 0) return;

  const origin = localOrigin(env.HOST, env.PORT);
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: db.runtime?.web ?? db.url,
    NEXTAUTH_SECRET: env.NEXTAUTH_SECRET ?? loadOrCreateSecret(dataRoot),
    NEXTAUTH_URL: process.env.NEXTAUTH_URL ?? env.RUNIFOLD_PUBLIC_URL ?? origin,
    // OAuth needs a canonical resource URL (never taken from request headers): locally, this origin.
    RUNIFOLD_PUBLIC_URL: env.RUNIFOLD_PUBLIC_URL ?? origin,
    NODE_ENV: "production",
  };
  const stack = new Supervisor({
    projectRoot: root,
    host: env.HOST,
    port: env.PORT,
    workers: env.RUNIFOLD_WORKERS,
    env: childEnv,
    workerEnv: { ...childEnv, DATABASE_URL: db.runtime?.worker ?? db.url },
    log,
  });
  supervisor = stack;
  stack.start();
  const publish = () =>
    writeSupervisorState(dataRoot, { pid: process.pid, ...stack.pids(), postgres: embedded?.pid, url: origin });
  publish();
  const refresh = setInterval(publish, 2_000); // worker restarts change pids
  refresh.unref();

  await stack.waitHealthy(120_000);
  if (signals() > 0) return;
  // The dev loop in the checkout: `runifold-worker --workflows <file> --dev` finds this store.
  await publishRepoDevFile({
    root,
    workerUrl: db.runtime?.worker ?? db.url,
    ownerUrl: db.url,
    consoleUrl: env.RUNIFOLD_PUBLIC_URL ?? origin,
    seededKey: db.seed?.apiKey,
    log,
  });
  printWelcome(env.RUNIFOLD_PUBLIC_URL ?? origin, db.seed, env.RUNIFOLD_WORKERS);
}

function printWelcome(url: string, seed: SeedResult | undefined, workers: number) {
  const lines = [
    ``,
    `  Runifold is running at ${url}`,
    `  console: ${url}/tasks · MCP endpoint: ${url}/api/mcp`,
    `  health: ${url}/api/health · workers: ${workers}`,
  ];
  const secrets = seed?.created ? credentialLines(seed, `${url}/api/mcp`) : [];
  if (secrets.length > 0) {
    const shown = presentCredentials(secrets, {
      dataRoot,
      isTTY: Boolean(process.stdout.isTTY),
      intro: "First run. Save these now; they are not shown again.",
    });
    lines.push(``, ...shown.map((line) => `  ${line}`));
    if (seed?.operator && !seed.apiKey) lines.push(`  The admin password must be changed at first sign-in.`);
  }
  lines.push(``, `  Press Ctrl-C to stop.`, ``);
  process.stdout.write(`${lines.join("\n")}\n`);
}

main().catch((error) => {
  process.stderr.write(`[runifold] ${error instanceof Error ? error.message : String(error)}\n`);
  void shutdown(1);
});
