import { firstContact, parseConnectionUrl, type Sql } from "@runifold/store";
import postgres from "postgres";
import { createLogger, type Logger } from "../logger";
import { LEASE_PLAN_SETTINGS } from "../ops/claim-runs";
import { readWorkerWebhooks, type WorkerWebhooks } from "../webhooks/worker-config";
import type { AnyWorkflow } from "../workflow";
import { devImporter, drainWhenOrphaned, isDevChild, tellSupervisor } from "./dev-child";
import { runDevSupervisor } from "./dev-supervisor";
import { loadWorkflowsModule, WorkflowsModuleError } from "./load-workflows";
import { redactUrl, runMigrateCommand } from "./migrate-command";
import { SchemaMismatchError } from "./schema-check";
import { serveWorkflows } from "./serve";
import { readWorkerEnv } from "./worker-env";
import { startWorkerTelemetry, type WorkerTelemetry } from "./worker-telemetry";

export const WORKER_HELP = `runifold-worker — serve a module of Runifold workflows

Usage: runifold-worker --workflows <module>
       runifold-worker --workflows <module> --dev
                                    the dev loop: a local dev server's store, TypeScript, reload on save
       runifold-worker migrate      apply this SDK's migrations to DATABASE_URL, then exit
                                    (runifold-worker migrate --help)

  --workflows <module>   a .js/.mjs module (.ts with --dev, or with a loader such as tsx) whose default
                         export is an array of defineWorkflow(...) definitions (named exports of
                         definitions also count); default: $RUNIFOLD_WORKFLOWS
  --dev                  the dev loop: the store is the one in .runifold/dev.json (written by
                         \`npx @runifold/server dev\` or the repository's \`npm start\`, found from the
                         current folder upwards) unless DATABASE_URL is set; a .ts module is served
                         as it is; a change to the module or a local file it imports drains the
                         worker and starts a new one on the new code. Changed code is published
                         even while runs of its name@version are live (RUNIFOLD_ACCEPT_CODE_CHANGE=*)
  --no-webhooks          do not deliver webhooks (same as RUNIFOLD_WEBHOOKS=off)
  -h, --help             this text

Environment:
  DATABASE_URL                  the Runifold store (postgres://…), required (with --dev: wins over
                                .runifold/dev.json)
  RUNIFOLD_WORKER_CONCURRENCY   runs executed at once (default 16)
  RUNIFOLD_LEASE_MS             a crashed worker's runs are claimable again after this (default 15000)
  RUNIFOLD_POLL_MS              polling fallback interval; wake-ups come by LISTEN/NOTIFY (default 1000)
  RUNIFOLD_LEASE_COMMIT         sync | async (default sync): async commits claims and lease renewals
                                without waiting for the disk or a standby; a crash or failover of the
                                primary may then let another worker run a step beside this one
  RUNIFOLD_TENANT_SHARE         the share of the fleet's slots one tenant may hold at once when it has
                                no max_concurrent_runs of its own (default 0.75; 1: no cap)
  RUNIFOLD_DB_POOLER            none | session (default none): session when DATABASE_URL is a
                                session-mode pooler (claims then run without their plan settings
                                and commit synchronously); workers never go through transaction mode
  RUNIFOLD_LOG_LEVEL            debug | info | warn | error | silent (default info; JSON lines on stderr)
  RUNIFOLD_METRICS_PORT         serve Prometheus metrics on GET /metrics at this port (0: any free
                                port, logged); unset: no metrics server
  RUNIFOLD_METRICS_TOKEN        Bearer token the metrics endpoint requires (16+ characters); unset:
                                only loopback scrapers are answered
  HOST                          the address the metrics server binds (default 127.0.0.1)
  RUNIFOLD_ACCEPT_CODE_CHANGE   name@version[,…] or *: publish changed workflow code even while runs
                                of that version are live (refused otherwise; docs/authoring.md
                                "Versioning"), e.g. a change guarded by ctx.patched
  RUNIFOLD_WEBHOOKS             on | off: serve the built-in webhook delivery workflow (default on)
  RUNIFOLD_WEBHOOK_KEY          the key webhook secrets are sealed with (16+ characters; default:
                                NEXTAUTH_SECRET). Webhooks are delivered only by workers with the
                                web's key: without one this worker delivers none, and with another
                                it claims none of the web's deliveries (they wait for a worker that
                                has it). A team's worker needs it only for approval receipts
                                (ctx.requestApproval signs with a key sealed under it).
  RUNIFOLD_PUBLIC_URL           the console's URL, for the links in webhook payloads
  RUNIFOLD_WEBHOOK_ALLOW_PRIVATE  true: webhooks may go to http and private/loopback addresses
  OTEL_EXPORTER_OTLP_ENDPOINT   turn tracing on: spans of every attempt and step go there (OTLP over
                                HTTP/protobuf); also OTEL_TRACES_EXPORTER=otlp|console|none,
                                OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER, OTEL_SDK_DISABLED

On start it checks the store's schema, publishes each definition (name, version, input JSON Schema,
preflight requests, fingerprints of the definition and of its code) and then claims runs. SIGTERM
or SIGINT drains (running attempts finish or are handed back within 10 s); a second signal exits at once.
Exit codes: 0 drained, 1 runtime failure, 2 usage, 3 configuration (module, env, database, schema).
`;

/** Parses argv; returns the module path, "help", or a usage error message. */
export function parseWorkerArgs(
  argv: string[],
  env: Record<string, string | undefined>,
): string | { help: true } | { usage: string } {
  let workflows = env.RUNIFOLD_WORKFLOWS || undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === "-h" || arg === "--help") return { help: true };
    if (arg === "--workflows") {
      const value = argv[i + 1];
      if (!value || value.startsWith("-")) return { usage: "--workflows needs a module path" };
      workflows = value;
      i += 1;
    } else if (arg.startsWith("--workflows=")) workflows = arg.slice("--workflows=".length);
    else return { usage: `unknown argument: ${arg}` };
  }
  if (!workflows) return { usage: "which workflows? pass --workflows <module> (or set RUNIFOLD_WORKFLOWS)" };
  return workflows;
}

/**
 * The worker process: returns an exit code for a start-up failure, or undefined once serving (the
 * process then lives until a signal drains it).
 */
export async function runWorkerCli(argv: string[], rawEnv: Record<string, string | undefined>): Promise<number | undefined> {
  if (argv[0] === "migrate") return runMigrateCommand(argv.slice(1), rawEnv);
  // --no-webhooks is RUNIFOLD_WEBHOOKS=off (read in runWorker with the rest of the environment).
  const noWebhooks = argv.includes("--no-webhooks");
  const dev = argv.includes("--dev");
  const args = parseWorkerArgs(
    argv.filter((arg) => arg !== "--no-webhooks" && arg !== "--dev"),
    rawEnv,
  );
  if (typeof args === "object" && "help" in args) {
    process.stdout.write(WORKER_HELP);
    return 0;
  }
  if (typeof args === "object") {
    process.stderr.write(`runifold-worker: ${args.usage}\n\n${WORKER_HELP}`);
    return 2;
  }
  // The dev loop: this process supervises, a child process (below, isDevChild) serves.
  if (dev) return runDevSupervisor({ workflows: args, passArgs: noWebhooks ? ["--no-webhooks"] : [], env: rawEnv });
  const devChild = isDevChild(rawEnv);
  if (devChild) drainWhenOrphaned();
  let workflows: Awaited<ReturnType<typeof loadWorkflowsModule>>;
  try {
    workflows = await loadWorkflowsModule(args, process.cwd(), devChild ? await devImporter() : undefined);
  } catch (error) {
    if (error instanceof WorkflowsModuleError) {
      process.stderr.write(`runifold-worker: ${error.message}\n`);
      return 3;
    }
    throw error;
  }
  return runWorker({
    workflows,
    env: noWebhooks ? { ...rawEnv, RUNIFOLD_WEBHOOKS: "off" } : rawEnv,
    onServing: devChild
      ? () => {
          tellSupervisor({ type: "serving" });
          return undefined;
        }
      : undefined,
  });
}

export type RunWorkerOptions = {
  workflows: AnyWorkflow[];
  env: Record<string, string | undefined>;
  /** Called once serving (e.g. to start a process's own timers); its stop runs before the pool closes. */
  onServing?: (served: { sql: Sql; workerId: string; logger: Logger }) => { stop(): Promise<void> } | undefined;
};

/**
 * A worker process for definitions already in hand: env, pool, schema check, publish, serve, and
 * drain on the first SIGTERM/SIGINT (exit 130 on the second). Returns an exit code for a start-up
 * failure, or undefined once serving.
 */
export async function runWorker(options: RunWorkerOptions): Promise<number | undefined> {
  const fail = (message: string) => {
    process.stderr.write(`runifold-worker: ${message}\n`);
    return 3;
  };
  let env: ReturnType<typeof readWorkerEnv>;
  try {
    env = readWorkerEnv(options.env);
  } catch (error) {
    return fail((error as Error).message);
  }
  if (!env.DATABASE_URL) return fail("DATABASE_URL is not set: point it at the Runifold store (postgres://…)");
  const workflows = options.workflows;
  const logger = createLogger("worker", env.RUNIFOLD_LOG_LEVEL);
  let webhooks: WorkerWebhooks;
  try {
    webhooks = readWorkerWebhooks(options.env, logger);
  } catch (error) {
    return fail((error as Error).message);
  }
  const sql = postgres(env.DATABASE_URL, {
    max: Math.min(env.RUNIFOLD_WORKER_CONCURRENCY, 8) + 2,
    idle_timeout: 30,
    connect_timeout: 10,
    onnotice: () => {},
    connection: { application_name: "runifold-worker" },
  });
  // Claims and renewals only (worker.ts `leaseSql`); two connections: one claim and one renewal at a
  // time is the norm. Their statements keep one generic plan per connection, held to index probes
  // (claim-runs.ts `LEASE_PLAN_SETTINGS`). Asynchronous commit only with RUNIFOLD_LEASE_COMMIT=async
  // (docs/architecture.md, "Commit durability per statement"). Both are startup parameters, which a
  // pooler refuses ("unsupported startup parameter: plan_cache_mode", PgBouncer), so a worker behind
  // one (RUNIFOLD_DB_POOLER=session) goes without them.
  const leaseSettings =
    env.RUNIFOLD_DB_POOLER === "session"
      ? {}
      : { ...LEASE_PLAN_SETTINGS, ...(env.RUNIFOLD_LEASE_COMMIT === "async" ? { synchronous_commit: "off" } : {}) };
  const leaseSql = postgres(env.DATABASE_URL, {
    max: 2,
    idle_timeout: 30,
    connect_timeout: 10,
    onnotice: () => {},
    connection: { application_name: "runifold-worker-lease", ...leaseSettings },
  });
  const endPools = (timeout: number) => Promise.all([sql.end({ timeout }), leaseSql.end({ timeout })]);
  try {
    await firstContact(sql, parseConnectionUrl(env.DATABASE_URL).hosts.length, 10);
  } catch (error) {
    await endPools(1).catch(() => {});
    return fail(`cannot reach the database at ${redactUrl(env.DATABASE_URL)}: ${(error as Error).message}`);
  }
  const telemetry: WorkerTelemetry = await startWorkerTelemetry(env, options.env, logger);
  // The handlers go in before serving starts: the worker registers and claims its first runs inside
  // serveWorkflows, and a SIGTERM in that window (a rollout stopping a pod that just started) must
  // drain those runs, not kill the process with their leases held until they expire.
  let served: Awaited<ReturnType<typeof serveWorkflows>> | undefined;
  let extra: { stop(): Promise<void> } | undefined;
  let signals = 0;
  let draining = false;
  const drain = () => {
    if (draining || !served) return;
    draining = true;
    Promise.all([served.worker.stop(10_000), extra?.stop()])
      // After the worker stopped: the last attempts' spans are flushed before the exit.
      .then(() => Promise.all([endPools(5), telemetry.stop()]))
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) {
      logger.warn("second signal: exiting without draining", { signal });
      process.exit(130);
    }
    logger.info("draining", { signal });
    drain(); // still starting: drained as soon as serveWorkflows returns
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  try {
    served = await serveWorkflows({
      sql,
      leaseSql,
      workflows,
      logger,
      concurrency: env.RUNIFOLD_WORKER_CONCURRENCY,
      leaseMs: env.RUNIFOLD_LEASE_MS,
      pollMs: env.RUNIFOLD_POLL_MS,
      tenantShare: env.RUNIFOLD_TENANT_SHARE,
      acceptCodeChange: env.RUNIFOLD_ACCEPT_CODE_CHANGE,
      observer: telemetry.observer,
      webhooks,
    });
  } catch (error) {
    process.off("SIGTERM", onSignal);
    process.off("SIGINT", onSignal);
    await Promise.all([endPools(1).catch(() => {}), telemetry.stop()]);
    if (error instanceof SchemaMismatchError || (error as Error).name === "DefinitionConflictError")
      return fail((error as Error).message);
    throw error;
  }
  logger.info("serving", {
    worker: served.worker.id,
    workflows: workflows.map((w) => `${w.name}@${w.version}`),
    webhooks: webhooks !== false,
  });
  if (signals > 0) {
    drain();
    return undefined;
  }
  extra = options.onServing?.({ sql, workerId: served.worker.id, logger });
  return undefined;
}
