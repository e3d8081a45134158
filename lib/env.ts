import { z } from "zod";
import { parseTrustedProxies } from "./auth/client-address";

/** A runtime login's password (RUNIFOLD_WEB_DB_PASSWORD, …); empty counts as unset (compose passes "" for an unset variable). */
const RUNTIME_PASSWORD = /^([\x21-\x7e]{16,})?$/;
const RUNTIME_PASSWORD_RULE = "must be 16+ printable ASCII characters without spaces";

/**
 * The process environment, parsed once. Every entry point calls `readEnv()`; a bad value fails fast
 * with a message naming the variable instead of surfacing later as an obscure runtime error.
 */
const ZEnv = z
  .object({
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
      .optional(),
    /**
     * What sits between this process and PostgreSQL (@runifold/store pooler.ts; docs/deploy.md
     * "Connection poolers"): `transaction` sends statements unnamed and moves LISTEN and the
     * retention lock to RUNIFOLD_DIRECT_DATABASE_URL (polling and the fence alone without it).
     */
    RUNIFOLD_DB_POOLER: z.enum(["none", "session", "transaction"]).default("none"),
    /** The store without the pooler, for LISTEN and the retention cleaner's session lock. */
    RUNIFOLD_DIRECT_DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
      .optional(),
    PORT: z.coerce.number().int().min(1).max(65_535).default(3000),
    HOST: z.string().min(1).default("127.0.0.1"),
    RUNIFOLD_WORKERS: z.coerce.number().int().min(0).max(64).default(1),
    RUNIFOLD_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
    /** A crashed worker's runs become claimable again this long after its last sign of life. */
    RUNIFOLD_LEASE_MS: z.coerce.number().int().min(200).max(3_600_000).default(15_000),
    RUNIFOLD_POLL_MS: z.coerce.number().int().min(20).max(60_000).default(1_000),
    /**
     * Live (non-terminal) tasks one API key or OAuth grant may have at once; past it tools/call is
     * refused with a tool error until some finish (security review M4: one credential must not be
     * able to queue without bound).
     */
    RUNIFOLD_MAX_ACTIVE_TASKS_PER_KEY: z.coerce.number().int().min(1).max(1_000_000).default(1_000),
    /**
     * SSE streams one credential may hold open at once on one web process (subscriptions/listen,
     * the legacy GET stream, streamed tasks/result and tools/call); past it: HTTP 429 + Retry-After
     * (security review M4). Per process: N instances allow N times this.
     */
    RUNIFOLD_MAX_STREAMS_PER_KEY: z.coerce.number().int().min(1).max(100_000).default(100),
    /** JSON requests one credential may have blocked on a task at once per process (tasks/result, ordinary tools/call); then 429. */
    RUNIFOLD_MAX_WAITS_PER_KEY: z.coerce.number().int().min(1).max(100_000).default(100),
    /** Tasks one credential may create per minute per process (a token bucket: a minute's worth in a burst); then a tool error. */
    RUNIFOLD_MAX_TASK_CREATES_PER_MINUTE_PER_KEY: z.coerce.number().int().min(1).max(1_000_000).default(600),
    /** The same for every credential of one tenant together (review F16), per process; then a tool error. */
    RUNIFOLD_MAX_TASK_CREATES_PER_MINUTE_PER_TENANT: z.coerce.number().int().min(1).max(1_000_000).default(3_000),
    /** How often each web process (and app-hosted worker) attempts a retention pass (one cleaner acts at a time). */
    RUNIFOLD_RETENTION_INTERVAL_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(600_000),
    /**
     * How long the audit trail keeps an event (days); the retention pass deletes older ones (ASVS
     * 8.3.8: the trail holds addresses and operator ids; review F9: it was never pruned).
     */
    RUNIFOLD_AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(365),
    /**
     * How long a purged run's tombstone is kept (days; at least 30, which the store enforces too);
     * the retention pass deletes older ones (review 3, E10: they were kept forever).
     */
    RUNIFOLD_TOMBSTONE_RETENTION_DAYS: z.coerce.number().int().min(30).max(36_500).default(365),
    /**
     * The URL people and clients reach this app at. Set, it turns OAuth on (docs/oauth.md): the MCP
     * resource is `<this>/api/mcp` and the authorization server's issuer is this URL, never the
     * request's Host header.
     */
    RUNIFOLD_PUBLIC_URL: z.url().optional(),
    /** OAuth access token lifetime in seconds (short: a leaked token is useful briefly; clients refresh). */
    RUNIFOLD_OAUTH_ACCESS_TOKEN_TTL_S: z.coerce.number().int().min(60).max(86_400).default(3_600),
    /** OAuth refresh token lifetime in seconds; each refresh issues a new one with a fresh lifetime. */
    RUNIFOLD_OAUTH_REFRESH_TOKEN_TTL_S: z.coerce.number().int().min(300).max(31_536_000).default(2_592_000),
    /**
     * `true`: client metadata documents (CIMD) may be fetched from loopback hosts (a client under
     * test on this machine). Off by default: it lets anyone signed in make the server fetch loopback URLs.
     */
    RUNIFOLD_OAUTH_LOOPBACK_CIMD: z.enum(["true", "false"]).default("false"),
    RUNIFOLD_ALLOWED_ORIGINS: z
      .string()
      .default("")
      .transform((value) =>
        value
          .split(",")
          .map((origin) => origin.trim())
          .filter(Boolean),
      ),
    NEXTAUTH_SECRET: z.string().min(16).optional(),
    /**
     * The key webhook signing secrets are sealed with (docs/webhooks.md); default NEXTAUTH_SECRET.
     * The workers that deliver must have the same one.
     */
    RUNIFOLD_WEBHOOK_KEY: z.string().min(16, "must be at least 16 characters").optional(),
    /** `true`: webhook URLs may be http and point at private, loopback or link-local addresses (tests, private networks). */
    RUNIFOLD_WEBHOOK_ALLOW_PRIVATE: z.enum(["true", "false"]).default("false"),
    /**
     * Reverse proxies whose X-Forwarded-For is believed (comma-separated IPs or CIDRs). Empty: the
     * client address is the socket peer and X-Forwarded-For is ignored (sign-in throttling, audit).
     */
    RUNIFOLD_TRUSTED_PROXIES: z
      .string()
      .default("")
      .refine((value) => {
        try {
          parseTrustedProxies(value);
          return true;
        } catch {
          return false;
        }
      }, "a comma-separated list of IP addresses or CIDRs"),
    /**
     * What `npm start` seeds into an empty store: `demo` (demo tenants, routes, a key and an admin),
     * `admin` (a first admin only, its password shown once) or `off`. Default: `demo` on the
     * embedded store, `admin` with DATABASE_URL (DESIGN.md §1).
     */
    RUNIFOLD_SEED: z.enum(["demo", "admin", "off"]).optional(),
    /**
     * The migrate job only: when set, it creates (or re-passwords) the database's runtime login for
     * the web (`runifold_web_<db>`) or the workers (`runifold_worker_<db>`) with this password
     * (review 3, F3/F4; docs/deploy.md, "Database roles"). Printable ASCII, 16+ characters; empty: unset.
     */
    RUNIFOLD_WEB_DB_PASSWORD: z.string().regex(RUNTIME_PASSWORD, RUNTIME_PASSWORD_RULE).optional(),
    RUNIFOLD_WORKER_DB_PASSWORD: z.string().regex(RUNTIME_PASSWORD, RUNTIME_PASSWORD_RULE).optional(),
    /**
     * Where local state lives (embedded PostgreSQL data and its published URL, the generated
     * NEXTAUTH_SECRET). Relative paths resolve against the project root. Default: `.data`.
     */
    RUNIFOLD_DATA_DIR: z.string().min(1).optional(),
    /**
     * Test-only: maps unauthenticated loopback requests to this tenant slug (used for the conformance
     * suite, which cannot send an Authorization header). Refused unless HOST is a loopback address.
     */
    RUNIFOLD_INSECURE_LOOPBACK_TENANT: z.string().min(1).optional(),
    RUNIFOLD_LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
    /** Bearer token GET /api/metrics requires (16+ characters). Unset: loopback scrapers only (docs/observability.md). */
    RUNIFOLD_METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
    /** The workflows module `npm start` and `npm run worker` serve with runifold-worker (default: the demo). */
    RUNIFOLD_WORKFLOWS: z.string().min(1).optional(),
    /** Operator single sign-on (docs/security.md): the OIDC issuer; with the client id and secret it turns SSO on. */
    RUNIFOLD_OIDC_ISSUER: z.url().optional(),
    RUNIFOLD_OIDC_CLIENT_ID: z.string().min(1).optional(),
    RUNIFOLD_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
    /** The sign-in button's label: "Sign in with <this>". */
    RUNIFOLD_OIDC_NAME: z.string().min(1).max(60).default("SSO"),
    /** Scopes requested from the identity provider (space-separated; `openid` is required by OIDC). */
    RUNIFOLD_OIDC_SCOPES: z
      .string()
      .default("openid email profile")
      .refine((value) => value.split(/\s+/).includes("openid"), "must include openid"),
    /**
     * The claim naming the operator by email. `email` (default) must come with `email_verified: true`;
     * another claim (e.g. `upn`) is one the identity provider vouches for by itself.
     */
    RUNIFOLD_OIDC_EMAIL_CLAIM: z.string().min(1).default("email"),
    /** Just-in-time creation: an unknown person becomes a member of this tenant (slug). Unset: unknown people are refused. */
    RUNIFOLD_OIDC_JIT_TENANT: z.string().min(1).optional(),
    /** The claim listing the person's groups, and the group whose members a just-in-time creation makes admins. */
    RUNIFOLD_OIDC_GROUPS_CLAIM: z.string().min(1).optional(),
    RUNIFOLD_OIDC_ADMIN_GROUP: z.string().min(1).optional(),
    /** `off` hides the password form and refuses password sign-in (SSO only). Keep `on` for the embedded default. */
    RUNIFOLD_PASSWORD_SIGNIN: z.enum(["on", "off"]).default("on"),
    /**
     * `required` (default): an admin signed in with a password must have a second factor (TOTP)
     * before using the console; `optional`: enrolment is each operator's choice (throwaway test stacks).
     */
    RUNIFOLD_ADMIN_MFA: z.enum(["required", "optional"]).default("required"),
    /** The key TOTP secrets are sealed with (lib/auth/mfa-secret.ts); default NEXTAUTH_SECRET. */
    RUNIFOLD_MFA_KEY: z.string().min(16, "must be at least 16 characters").optional(),
  })
  .refine((env) => !env.RUNIFOLD_DIRECT_DATABASE_URL || env.RUNIFOLD_DB_POOLER === "transaction", {
    path: ["RUNIFOLD_DIRECT_DATABASE_URL"],
    message: "only read with RUNIFOLD_DB_POOLER=transaction (other modes LISTEN on DATABASE_URL itself)",
  })
  .refine((env) => !env.RUNIFOLD_INSECURE_LOOPBACK_TENANT || ["127.0.0.1", "::1", "localhost"].includes(env.HOST), {
    path: ["RUNIFOLD_INSECURE_LOOPBACK_TENANT"],
    message: "only allowed when HOST is a loopback address (127.0.0.1, ::1 or localhost)",
  })
  // A half-configured SSO is a typo, not a choice: all three or none.
  .refine(
    (env) => {
      const set = [env.RUNIFOLD_OIDC_ISSUER, env.RUNIFOLD_OIDC_CLIENT_ID, env.RUNIFOLD_OIDC_CLIENT_SECRET].filter(Boolean).length;
      return set === 0 || set === 3;
    },
    {
      path: ["RUNIFOLD_OIDC_ISSUER"],
      message: "set RUNIFOLD_OIDC_ISSUER, RUNIFOLD_OIDC_CLIENT_ID and RUNIFOLD_OIDC_CLIENT_SECRET together, or none",
    },
  )
  .refine((env) => !env.RUNIFOLD_OIDC_ADMIN_GROUP || env.RUNIFOLD_OIDC_GROUPS_CLAIM, {
    path: ["RUNIFOLD_OIDC_ADMIN_GROUP"],
    message: "needs RUNIFOLD_OIDC_GROUPS_CLAIM (the claim the group is looked up in)",
  })
  .refine((env) => !env.RUNIFOLD_OIDC_JIT_TENANT || env.RUNIFOLD_OIDC_ISSUER, {
    path: ["RUNIFOLD_OIDC_JIT_TENANT"],
    message: "only means something with single sign-on (RUNIFOLD_OIDC_ISSUER)",
  })
  .refine((env) => env.RUNIFOLD_PASSWORD_SIGNIN === "on" || env.RUNIFOLD_OIDC_ISSUER, {
    path: ["RUNIFOLD_PASSWORD_SIGNIN"],
    message: "off needs single sign-on configured (RUNIFOLD_OIDC_ISSUER …), or nobody could sign in",
  });

export type Env = z.infer<typeof ZEnv>;

let cached: Env | undefined;

export function readEnv(source: Record<string, string | undefined> = process.env): Env {
  if (source === process.env && cached) return cached;
  const parsed = ZEnv.safeParse(source);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`Invalid environment:\n${problems.join("\n")}`);
  }
  if (source === process.env) cached = parsed.data;
  return parsed.data;
}
