import os from "node:os";
import postgres from "postgres";

export const ROOT_DB_OPTIONS = { onnotice: () => {} } as const;

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** (Re)creates a database on the bench server and returns its URL. */
export async function recreateDatabase(adminUrl: string, name: string): Promise<string> {
  const admin = postgres(adminUrl, { max: 1, ...ROOT_DB_OPTIONS });
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return withDatabase(adminUrl, name);
}

const templates = new Map<string, Promise<void>>();

/**
 * (Re)creates `name` as a copy of a template that `prepare` filled once per bench process (migrations,
 * tenants): copying a template takes a fraction of the seconds a full migration does, and the bench
 * recreates its engine database for every case. The template is rebuilt per process, so a migration
 * added since the last bench run is always in it.
 */
export async function recreateFromTemplate(
  adminUrl: string,
  name: string,
  prepare: (url: string) => Promise<void>,
): Promise<string> {
  const template = `${name}_template`;
  let ready = templates.get(template);
  if (!ready) {
    ready = recreateDatabase(adminUrl, template).then(prepare);
    templates.set(template, ready);
  }
  await ready;
  const admin = postgres(adminUrl, { max: 1, ...ROOT_DB_OPTIONS });
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  } finally {
    await admin.end();
  }
  return withDatabase(adminUrl, name);
}

export async function databaseExists(adminUrl: string, name: string): Promise<boolean> {
  const admin = postgres(adminUrl, { max: 1, ...ROOT_DB_OPTIONS });
  try {
    const rows = await admin`SELECT 1 FROM pg_database WHERE datname = ${name}`;
    return rows.length > 0;
  } finally {
    await admin.end();
  }
}

/** The machine and server settings every run states. */
export async function describeEnvironment(adminUrl: string) {
  const sql = postgres(adminUrl, { max: 1, ...ROOT_DB_OPTIONS });
  try {
    const show = async (name: string) => ((await sql.unsafe(`SHOW ${name}`))[0] as Record<string, string>)[name];
    const settings: Record<string, string | undefined> = {};
    for (const name of [
      "server_version",
      "synchronous_commit",
      "fsync",
      "wal_sync_method",
      "shared_buffers",
      "max_connections",
      "wal_writer_delay",
      "commit_delay",
    ]) {
      settings[name] = await show(name);
    }
    const cpus = os.cpus();
    return {
      machine: {
        cores: cpus.length,
        cpuModel: cpus[0]?.model ?? "unknown",
        memoryGiB: Math.round(os.totalmem() / 2 ** 30),
        node: process.version,
        platform: `${process.platform}-${process.arch}`,
        loadAverage1m: os.loadavg()[0],
      },
      postgres: settings,
    };
  } finally {
    await sql.end();
  }
}
