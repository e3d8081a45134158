// `runifold-server dev`: a Runifold for one developer, in the current directory. The embedded
// PostgreSQL keeps its data in ./.runifold/pg between runs; the first run seeds a first admin, the
// tenant `dev` and an API key, and prints them once. Every run migrates, serves the console and the
// MCP endpoint on 127.0.0.1 and writes ./.runifold/dev.json for local workers. Ctrl-C (or SIGTERM)
// stops the web process, then PostgreSQL; a second signal kills both at once.
import path from "node:path";
import { readDevFile } from "@runifold/sdk";
import { type EmbeddedPostgres, portIsFree } from "@runifold/store/embedded";
import { credentialLines } from "../lib/first-run-credentials";
import { publishRepoDevFile } from "../lib/repo-dev-file";
import { handleShutdown } from "../lib/shutdown";
import { localOrigin, prepareDatabase, type SeedResult, Supervisor, stopPostgres } from "../lib/stack";
import { clearSupervisorState, loadOrCreateSecret, stopOrphans, writeSupervisorState } from "../lib/supervisor-state";
import { DEV_TENANT, devSeed, readSavedKey } from "./dev-seed";
import { type AppLayout, UsageError } from "./layout";

const HOST = "127.0.0.1";
const log = (line: string) => process.stdout.write(`[runifold-server] ${line}\n`);

export async function dev(app: AppLayout, options: { port: number; cwd: string }): Promise<void> {
  const stateDir = path.join(options.cwd, ".runifold");
  const shown = path.relative(options.cwd, stateDir) || ".";
  // Before anything starts: a busy port is the commonest failure, and says what to do.
  if (!(await portIsFree(options.port)))
    throw new UsageError(`${HOST}:${options.port} is already in use; pass another with --port <n>`);
  const nativeDir = app.embeddedBinaries();

  let embedded: EmbeddedPostgres | undefined;
  let supervisor: Supervisor | undefined;
  const { shutdown, signals } = handleShutdown({
    log,
    async graceful() {
      await supervisor?.stop(15_000);
      await stopPostgres(embedded);
      clearSupervisorState(stateDir);
    },
    async fast() {
      await stopPostgres(embedded, true);
      clearSupervisorState(stateDir);
    },
  });

  try {
    await stopOrphans(stateDir, log);
    const db = await prepareDatabase({
      projectRoot: options.cwd,
      dataRoot: stateDir,
      embeddedName: "pg",
      nativeDir,
      migrationsDir: app.migrationsDir,
      log,
      onEmbedded: (pg) => {
        embedded = pg;
      },
      seed: devSeed(stateDir),
      // The web and local workers connect as the store's runtime logins, never as its superuser.
      runtimeLogins: true,
    });
    if (db.applied.length > 0) log(`applied ${db.applied.length} migration(s), last ${db.applied.at(-1)}`);
    if (signals() > 0) return;

    const origin = localOrigin(HOST, options.port);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: db.runtime?.web ?? db.url,
      NEXTAUTH_SECRET: loadOrCreateSecret(stateDir),
      NEXTAUTH_URL: origin,
      RUNIFOLD_PUBLIC_URL: origin,
      HOST,
      PORT: String(options.port),
      NODE_ENV: "production",
    };
    const stack = new Supervisor({
      projectRoot: options.cwd,
      host: HOST,
      port: options.port,
      workers: 0,
      env,
      web: { args: [app.webStart], cwd: app.dir },
      log,
    });
    supervisor = stack;
    stack.start();
    writeSupervisorState(stateDir, { pid: process.pid, ...stack.pids(), postgres: embedded?.pid, url: origin });
    await stack.waitHealthy(120_000);
    if (signals() > 0) return;

    // dev.json (the SDK's format, removed again on exit) with the saved key, if it still verifies.
    const file = await publishRepoDevFile({
      root: options.cwd,
      workerUrl: db.runtime?.worker ?? db.url,
      ownerUrl: db.url,
      consoleUrl: origin,
      seededKey: readSavedKey(stateDir)?.apiKey,
      log,
    });
    const hasKey = file ? Boolean(readDevFile(file).apiKey) : false;
    // Usually .runifold/pg; elsewhere when a root process had to move it where the postgres user can reach it.
    const store = db.embedded ? relativeIfInside(options.cwd, db.embedded.dataDir) : `${shown}/pg`;
    process.stdout.write(
      `${welcome(origin, store, file ? path.relative(options.cwd, file) : undefined, db.seed, hasKey).join("\n")}\n`,
    );
  } catch (error) {
    process.stderr.write(`[runifold-server] ${error instanceof Error ? error.message : String(error)}\n`);
    await shutdown(1);
  }
}

function relativeIfInside(dir: string, file: string): string {
  const relative = path.relative(dir, file);
  return relative.startsWith("..") || path.isAbsolute(relative) ? file : relative;
}

function welcome(
  origin: string,
  store: string,
  devFile: string | undefined,
  seed: SeedResult | undefined,
  hasKey: boolean,
): string[] {
  const mcp = `${origin}/api/mcp`;
  const lines = [
    "",
    `  Runifold dev server: console ${origin}`,
    `  MCP endpoint: ${mcp}`,
    `  store: ${store} (embedded PostgreSQL, kept between runs)${devFile ? ` · for local workers: ${devFile}` : ""}`,
  ];
  if (seed?.created) {
    lines.push(
      "",
      seed.operator ? "  First run. Save these now; they are not shown again:" : "  A new API key (the saved one was missing):",
    );
    lines.push(...credentialLines(seed, mcp, `API key (${DEV_TENANT})`).map((line) => `    ${line}`));
    if (seed.operator) lines.push("  The admin password must be changed at first sign-in.");
  } else {
    lines.push(
      "",
      hasKey && devFile
        ? `  Credentials: the API key of tenant ${DEV_TENANT} is in ${devFile}; the admin password was shown on the first run.`
        : "  Credentials: the admin password was shown on the first run; create API keys in the console.",
    );
  }
  lines.push("", "  Press Ctrl-C to stop.", "");
  return lines;
}
