import { z } from "zod";

/** The worker CLI's environment (docs/deploy.md, packages/sdk/README.md): parsed once; a bad value names the variable. */
const WorkerEnv = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL")
    .optional(),
  RUNIFOLD_WORKFLOWS: z.string().min(1).optional(),
  RUNIFOLD_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(16),
  RUNIFOLD_LEASE_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(15_000),
  RUNIFOLD_POLL_MS: z.coerce.number().int().min(10).max(600_000).default(1_000),
  /**
   * The share of the fleet's slots one tenant may hold when it has no max_concurrent_runs of its own
   * (tenant-share.ts); 1 = no cap.
   */
  RUNIFOLD_TENANT_SHARE: z.coerce.number().gt(0).max(1).default(0.75),
  /**
   * sync: claims and lease renewals commit like every other write (and wait for a synchronous
   * standby). async: synchronous_commit=off, a third of a millisecond less per idle claim, but a
   * crash or failover of the primary can undo a claim or renewal the worker already acted on, so
   * another worker may run a step beside it (docs/architecture.md, "Commit durability per statement").
   */
  RUNIFOLD_LEASE_COMMIT: z.enum(["async", "sync"]).default("sync"),
  /**
   * none: DATABASE_URL is the server itself; session: a session-mode pooler (the lease pool then
   * sends no extra startup parameters, which PgBouncer refuses). Transaction pooling is the web's
   * (docs/deploy.md "Connection poolers"): a worker LISTENs and runs long sessions of claims.
   */
  RUNIFOLD_DB_POOLER: z
    .enum(["none", "session", "transaction"])
    .default("none")
    .refine((mode) => mode !== "transaction", {
      message: "transaction is for the web tier; connect workers directly (none) or through a session-mode pooler (session)",
    })
    .transform((mode) => mode as "none" | "session"),
  RUNIFOLD_LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  /** Serve GET /metrics on this port (0: any free port, logged); unset: no metrics server. */
  RUNIFOLD_METRICS_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
  /** A Bearer token the metrics endpoint requires; unset: loopback scrapers only. */
  RUNIFOLD_METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  /**
   * `name@version` keys (comma-separated; `*`: all) whose changed code this worker may publish while
   * runs of that version are live (definitions/publish.ts): the operator's word that the change is
   * safe for runs under way, e.g. guarded by ctx.patched.
   */
  RUNIFOLD_ACCEPT_CODE_CHANGE: z
    .string()
    .transform((list) =>
      list
        .split(",")
        .map((entry) => entry.trim())
        .filter((entry) => entry.length > 0),
    )
    .optional(),
  /** The address the metrics server binds. */
  HOST: z.string().min(1).default("127.0.0.1"),
});

export type WorkerEnv = z.infer<typeof WorkerEnv>;

export function readWorkerEnv(env: Record<string, string | undefined>): WorkerEnv {
  const blanksRemoved = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const parsed = WorkerEnv.safeParse(blanksRemoved);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new Error(`${issue?.path.join(".") ?? "environment"}: ${issue?.message ?? "invalid"}`);
}
