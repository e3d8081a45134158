import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createDb, createRuntimeLogins, migrate, type RuntimeKind } from "@runifold/store";
import { ensureFirstAdmin, SEED_ACTOR } from "../../lib/admin";
import { credentialLines, presentCredentials } from "./first-run-credentials";

/** What the migrate job seeds after migrating: a first admin on a store without operators, or nothing. */
export type MigrateSeed = "admin" | "off";

/** Arbitrary constant, next to the migrations' own lock: two jobs at once never both create a first admin. */
const SEED_LOCK_KEY = 7_240_002;

/**
 * RUNIFOLD_SEED for the migrate job: `admin` by default with a DATABASE_URL of your own (DESIGN.md
 * §1), `off` on the embedded store (`npm start` seeds that). The demo is `npm start`'s alone, so a
 * production job can never put demo tenants and a demo key into a real store by a stray variable.
 */
export function migrateSeed(env: { RUNIFOLD_SEED?: string; DATABASE_URL?: string }): MigrateSeed | { refused: string } {
  const mode = env.RUNIFOLD_SEED ?? (env.DATABASE_URL ? "admin" : "off");
  if (mode === "admin" || mode === "off") return mode;
  return {
    refused:
      "RUNIFOLD_SEED=demo is for `npm start` (RUNIFOLD_SEED=demo npm start); the migrate job seeds `admin` (a first admin only) or `off`",
  };
}

/**
 * The migrations to apply: the copy beside a bundled job (the web image's migrate.mjs sits next to
 * db/migrations), else the repository's own (@runifold/store's migrations directory).
 */
export function bundledMigrationsDir(from: string): string | undefined {
  const beside = path.join(path.dirname(fileURLToPath(from)), "db", "migrations");
  return existsSync(path.join(beside, "meta", "_journal.json")) ? beside : undefined;
}

/**
 * The one-shot job (`npm run db:migrate`, `node migrate.mjs` in the web image): applies pending
 * migrations under their advisory lock, then the seed, and reports. The first admin's password is
 * shown once, on a terminal, or written to a 0600 file under `dataRoot` — never to a log.
 */
export async function runMigrateJob(options: {
  url: string;
  migrationsDir?: string;
  seed: MigrateSeed;
  /** RUNIFOLD_WEB_DB_PASSWORD / RUNIFOLD_WORKER_DB_PASSWORD: the runtime logins to create or re-password. */
  runtimePasswords?: Partial<Record<RuntimeKind, string>>;
  dataRoot: string;
  isTTY: boolean;
  write: (line: string) => void;
}): Promise<{ applied: string[]; seeded: boolean }> {
  const { sql } = createDb(options.url, { max: 1, name: "runifold-migrate" });
  try {
    const { applied } = await migrate(sql, options.migrationsDir);
    if (applied.length === 0) options.write("migrations: up to date");
    for (const tag of applied) options.write(`applied ${tag}`);
    await runtimeLogins(sql, options);
    if (options.seed === "off") return { applied, seeded: false };
    const operator = await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${SEED_LOCK_KEY})`;
      return ensureFirstAdmin({ sql: tx, actor: SEED_ACTOR });
    });
    if (!operator) return { applied, seeded: false };
    const shown = presentCredentials(credentialLines({ operator }), {
      dataRoot: options.dataRoot,
      isTTY: options.isTTY,
      intro: "First admin created. Save this now; it is not shown again:",
    });
    for (const line of shown) options.write(line);
    options.write("The admin password must be changed at first sign-in.");
    return { applied, seeded: true };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * The runtime logins the web and workers connect as (review 3, F3/F4): created or re-passworded with
 * the passwords the operator set (compose passes the same variables to the URLs of web and worker).
 * Only the role names are printed, never a password.
 */
async function runtimeLogins(
  sql: ReturnType<typeof createDb>["sql"],
  options: { url: string; runtimePasswords?: Partial<Record<RuntimeKind, string>>; write: (line: string) => void },
) {
  const kinds = (["web", "worker"] as const).filter((kind) => options.runtimePasswords?.[kind]);
  if (kinds.length === 0) return;
  // One job at a time (two started at once would both CREATE the same role).
  const { logins } = await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${SEED_LOCK_KEY})`;
    return createRuntimeLogins(tx, { ownerUrl: options.url, passwords: options.runtimePasswords, kinds });
  });
  for (const login of logins) options.write(`runtime login ${login.user} (in ${login.group}): password set`);
}
