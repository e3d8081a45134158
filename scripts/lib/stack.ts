import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createDb, createRuntimeLogins, migrate } from "@runifold/store";
import { type EmbeddedPostgres, isAlive, startEmbeddedPostgres } from "@runifold/store/embedded";
import { ensureFirstAdmin, SEED_ACTOR } from "../../lib/admin";
import { exited, isRunning, spawnNode, stopChildren } from "./children";

export type Log = (line: string) => void;
export type SeedResult = { created: boolean; apiKey?: string; operator?: { email: string; password: string } };

/** RUNIFOLD_SEED: what an empty store gets (DESIGN.md §1). */
export type SeedMode = "demo" | "admin" | "off";

/** `demo` on the embedded store, `admin` (a first operator only) with a DATABASE_URL of your own. */
export function defaultSeedMode(databaseUrl: string | undefined): SeedMode {
  return databaseUrl ? "admin" : "demo";
}

/**
 * The pieces `npm start` and `npm test` share: a migrated (and, when empty, seeded) database, and a
 * supervised web process plus workers.
 */
export async function prepareDatabase(options: {
  projectRoot: string;
  dataRoot: string;
  databaseUrl?: string;
  embeddedName: string;
  log: Log;
  onEmbedded?: (pg: EmbeddedPostgres) => void;
  /** Default: defaultSeedMode(databaseUrl); a function seeds the store its own way (`runifold-server dev`). */
  seed?: SeedMode | ((sql: ReturnType<typeof createDb>["sql"]) => Promise<SeedResult | undefined>);
  /** The embedded server's binaries when not under `<projectRoot>/node_modules` (an installed @runifold/server). */
  nativeDir?: string;
  /** The migrations to apply when not @runifold/store's own (a bundle ships a copy beside itself). */
  migrationsDir?: string;
  /** With the demo seed, also the conformance tenant and its fixture tools (the test stacks); `npm start` seeds the showcase only. */
  conformanceFixtures?: boolean;
  /**
   * Also create (or re-password) the database's runtime logins, whose URLs the web and workers get
   * instead of `url` (the owner's, for migrations and the seed only). `npm start` on the embedded
   * store: its `url` is the cluster's superuser (review 3, F4).
   */
  runtimeLogins?: boolean;
}): Promise<{
  url: string;
  embedded?: EmbeddedPostgres;
  seed?: SeedResult;
  applied: string[];
  runtime?: { web: string; worker: string };
}> {
  let embedded: EmbeddedPostgres | undefined;
  let url = options.databaseUrl;
  if (!url) {
    embedded = await startEmbeddedPostgres({
      projectRoot: options.projectRoot,
      dataRoot: options.dataRoot,
      name: options.embeddedName,
      detached: true,
      log: options.log,
      nativeDir: options.nativeDir,
    });
    options.onEmbedded?.(embedded);
    url = embedded.url;
  }
  const { sql } = createDb(url, { max: 2, name: "runifold-start" });
  try {
    const { applied } = await migrate(sql, options.migrationsDir);
    const mode = options.seed ?? defaultSeedMode(options.databaseUrl);
    const seed =
      typeof mode === "function"
        ? await mode(sql)
        : mode === "demo"
          ? await seedIfEmpty(sql, options.projectRoot, options.conformanceFixtures === true)
          : mode === "admin"
            ? await seedAdmin(sql)
            : undefined;
    const runtime = options.runtimeLogins ? await runtimeUrls(sql, url) : undefined;
    return { url, embedded, seed, applied, runtime };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * Seeds the demo tenants on a database without tenants. The seed lives in workflows/demo/seed.ts;
 * a build without that module simply starts with an empty store, so it is loaded by path (not a
 * static import) and skipped when absent.
 */
async function seedIfEmpty(
  sql: ReturnType<typeof createDb>["sql"],
  projectRoot: string,
  conformanceFixtures: boolean,
): Promise<SeedResult | undefined> {
  const [row] = await sql`SELECT count(*)::int AS n FROM tenants`;
  if (Number(row?.n) > 0) return undefined;
  const file = path.join(projectRoot, "workflows", "demo", "seed.ts");
  if (!existsSync(file)) return undefined;
  const mod = (await import(pathToFileURL(file).href)) as {
    seedDemo?: (s: typeof sql, options: { fixtures: "conformance" | "none" }) => Promise<SeedResult>;
  };
  return mod.seedDemo ? await mod.seedDemo(sql, { fixtures: conformanceFixtures ? "conformance" : "none" }) : undefined;
}

/** RUNIFOLD_SEED=admin: a first admin on a store without operators (no demo tenants, no keys). */
async function seedAdmin(sql: ReturnType<typeof createDb>["sql"]): Promise<SeedResult | undefined> {
  const operator = await ensureFirstAdmin({ sql, actor: SEED_ACTOR });
  return operator ? { created: true, operator } : undefined;
}

/**
 * Fresh passwords on every start: only this process hands them on (in the children's environment),
 * so nothing is kept on disk and a copied old URL stops working.
 */
async function runtimeUrls(sql: ReturnType<typeof createDb>["sql"], ownerUrl: string): Promise<{ web: string; worker: string }> {
  const { logins } = await createRuntimeLogins(sql, { ownerUrl });
  const url = (kind: string) => logins.find((login) => login.kind === kind)?.url;
  const web = url("web");
  const worker = url("worker");
  if (!web || !worker) throw new Error("the runtime logins were not created");
  return { web, worker };
}

/** The URL to reach a server bound to host:port from this machine. */
export function localOrigin(host: string, port: number): string {
  const h = ["0.0.0.0", "::"].includes(host) ? "127.0.0.1" : host;
  return `http://${h.includes(":") ? `[${h}]` : h}:${port}`;
}

export type StackOptions = {
  projectRoot: string;
  host: string;
  port: number;
  workers: number;
  env: NodeJS.ProcessEnv;
  /** The workers' environment when it differs from the web's (their own DATABASE_URL). */
  workerEnv?: NodeJS.ProcessEnv;
  /**
   * The web process as node arguments and working directory; default `next start` of the checkout.
   * `runifold-server` runs the standalone server's start.mjs instead (HOST and PORT in `env`).
   */
  web?: { args: string[]; cwd: string };
  log: Log;
};

/** `next start` plus N worker processes; crashed workers (and a web process that was up) restart with backoff. */
export class Supervisor {
  private web?: ChildProcess;
  private readonly workers: (ChildProcess | undefined)[] = [];
  private stopping = false;
  private webWasHealthy = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private fatal?: (error: Error) => void;
  readonly failed: Promise<never>;

  constructor(private readonly options: StackOptions) {
    this.failed = new Promise<never>((_, reject) => {
      this.fatal = reject;
    });
    this.failed.catch(() => {});
  }

  get origin() {
    return localOrigin(this.options.host, this.options.port);
  }

  pids() {
    return { web: this.web?.pid, workers: this.workers.map((w) => w?.pid).filter((p): p is number => !!p) };
  }

  start() {
    this.startWeb(0);
    for (let i = 0; i < this.options.workers; i++) this.startWorker(i, 0);
  }

  private startWeb(attempt: number) {
    const nextBin = path.join(this.options.projectRoot, "node_modules", "next", "dist", "bin", "next");
    const { args, cwd } = this.options.web ?? {
      args: [nextBin, "start", "-H", this.options.host, "-p", String(this.options.port)],
      cwd: this.options.projectRoot,
    };
    const child = spawnNode("web", args, this.options.env, cwd);
    this.web = child;
    this.supervise(child, "web", attempt, (next) => {
      if (!this.webWasHealthy) return this.fatal?.(new Error("the web process exited before it became ready"));
      this.startWeb(next);
    });
  }

  /**
   * Each worker is the SDK's runifold-worker serving RUNIFOLD_WORKFLOWS (default: the demo module),
   * exactly as a team runs its own: the demo is a worker like any other.
   */
  private startWorker(index: number, attempt: number) {
    const root = this.options.projectRoot;
    const bin = path.join(root, "packages", "sdk", "src", "bin", "runifold-worker.ts");
    const base = this.options.workerEnv ?? this.options.env;
    const workflows = base.RUNIFOLD_WORKFLOWS || path.join(root, "workflows", "demo", "index.ts");
    const env = { ...base, TSX_TSCONFIG_PATH: path.join(root, "tsconfig.json") };
    const child = spawnNode(`worker-${index + 1}`, ["--import", "tsx", bin, "--workflows", workflows], env, root);
    this.workers[index] = child;
    this.supervise(child, `worker-${index + 1}`, attempt, (next) => this.startWorker(index, next));
  }

  private supervise(child: ChildProcess, label: string, attempt: number, restart: (attempt: number) => void) {
    const startedAt = Date.now();
    child.once("exit", (code, signal) => {
      if (this.stopping) return;
      const next = Date.now() - startedAt > 30_000 ? 0 : attempt + 1;
      const delay = Math.min(30_000, 500 * 2 ** next);
      this.options.log(`${label} exited (${signal ?? `code ${code}`}); restarting in ${(delay / 1000).toFixed(1)} s`);
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        if (!this.stopping) restart(next);
      }, delay);
      this.timers.add(timer);
    });
  }

  /**
   * Resolves once GET /api/health answers 200 and `ready` accepts its body (test stacks wait for
   * their workers to be online too); rejects on timeout, with the last body seen, or on a fatal exit.
   */
  async waitHealthy(timeoutMs: number, ready: (health: unknown) => boolean = () => true): Promise<unknown> {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    while (Date.now() < deadline && !this.stopping) {
      const body = await Promise.race([this.probe(), this.failed]);
      if (body) {
        this.webWasHealthy = true;
        last = body;
        if (ready(body)) return body;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    const seen = last === undefined ? "" : ` (last answer: ${JSON.stringify(last)})`;
    throw new Error(`${this.origin}/api/health was not ready within ${Math.round(timeoutMs / 1000)} s${seen}`);
  }

  private async probe(): Promise<unknown> {
    try {
      const response = await fetch(`${this.origin}/api/health`, { signal: AbortSignal.timeout(5_000) });
      return response.status === 200 ? await response.json() : undefined;
    } catch {
      return undefined;
    }
  }

  /** Graceful: workers and web get SIGTERM, then SIGKILL after `graceMs`. */
  async stop(graceMs = 15_000) {
    this.stopping = true;
    for (const timer of this.timers) clearTimeout(timer);
    const children = [this.web, ...this.workers].filter((c): c is ChildProcess => !!c);
    await stopChildren(children, graceMs);
    await Promise.all(children.map(exited));
  }

  running() {
    return [this.web, ...this.workers].some((c) => c && isRunning(c));
  }
}

/** Stops an embedded Postgres; `fast` skips the checkpoint (immediate shutdown, recovery on next start). */
export async function stopPostgres(pg: EmbeddedPostgres | undefined, fast = false) {
  if (!pg) return;
  if (!fast) return pg.stop();
  try {
    process.kill(pg.pid, "SIGQUIT");
  } catch {
    return;
  }
  const deadline = Date.now() + 5_000;
  while (isAlive(pg.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (isAlive(pg.pid)) process.kill(pg.pid, "SIGKILL");
}
