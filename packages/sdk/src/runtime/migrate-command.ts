import { firstContact, migrate, parseConnectionUrl, redactConnectionUrl } from "@runifold/store";
import postgres from "postgres";
import { shippedMigrationsDir } from "./migrations-dir";
import { readSchemaStatus } from "./schema-check";
import { readWorkerEnv } from "./worker-env";

export const MIGRATE_HELP = `runifold-worker migrate — apply this SDK's migrations to the store, then exit

Usage: runifold-worker migrate

  DATABASE_URL   the Runifold store (postgres://…), required

Applies every migration shipped with this SDK that the store lacks, in one transaction under an
advisory lock (several migrators at once are safe: the others wait, then find nothing to do), and
prints each applied tag or "migrations: up to date". It seeds nothing: the web image's migrate job
(\`node migrate.mjs\`, docs/deploy.md) also creates the first admin.
Exit codes: 0 applied or up to date, 1 a migration failed, 2 usage, 3 configuration (env, database).
`;

type Output = { stdout: (text: string) => void; stderr: (text: string) => void };

const processOutput: Output = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/**
 * `runifold-worker migrate`: the one-shot schema job for deployments that have the SDK and not the
 * app's toolchain (an init container, a CI step before rolling workers). Returns the exit code.
 */
export async function runMigrateCommand(
  argv: string[],
  rawEnv: Record<string, string | undefined>,
  out: Output = processOutput,
): Promise<number> {
  if (argv.includes("-h") || argv.includes("--help")) {
    out.stdout(MIGRATE_HELP);
    return 0;
  }
  if (argv.length > 0) {
    out.stderr(`runifold-worker migrate: unknown argument: ${argv[0]}\n\n${MIGRATE_HELP}`);
    return 2;
  }
  let url: string | undefined;
  try {
    url = readWorkerEnv(rawEnv).DATABASE_URL;
  } catch (error) {
    out.stderr(`runifold-worker migrate: ${(error as Error).message}\n`);
    return 3;
  }
  if (!url) {
    out.stderr("runifold-worker migrate: DATABASE_URL is not set: point it at the Runifold store (postgres://…)\n");
    return 3;
  }
  const sql = postgres(url, {
    max: 1,
    connect_timeout: 10,
    onnotice: () => {},
    connection: { application_name: "runifold-migrate" },
  });
  try {
    try {
      await firstContact(sql, parseConnectionUrl(url).hosts.length, 10);
    } catch (error) {
      out.stderr(`runifold-worker migrate: cannot reach the database at ${redactUrl(url)}: ${(error as Error).message}\n`);
      return 3;
    }
    try {
      const { applied } = await migrate(sql, shippedMigrationsDir());
      if (applied.length === 0) out.stdout("migrations: up to date\n");
      for (const tag of applied) out.stdout(`applied ${tag}\n`);
    } catch (error) {
      out.stderr(`runifold-worker migrate: ${(error as Error).message}\n`);
      return 1;
    }
    // A store migrated by a newer release is fine for this SDK (migrations only add), but worth saying.
    const { unknown } = await readSchemaStatus(sql);
    if (unknown.length > 0)
      out.stdout(`note: the store also has migrations newer than this SDK (${unknown.join(", ")}); nothing to undo\n`);
    return 0;
  } finally {
    await sql.end({ timeout: 5 }).catch(() => {});
  }
}

/** The URL without its password, for error messages (secrets are never printed); multi-host URLs too. */
export const redactUrl = redactConnectionUrl;
