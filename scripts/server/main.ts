// runifold-server (the bin of @runifold/server, DESIGN.md §8): `dev` and `start`. Bundled by
// scripts/server/build-package.ts into the package's dist/bin, beside the standalone server in dist/app.
import { parseArgs } from "node:util";
import { dev } from "./dev";
import { appLayout, UsageError } from "./layout";
import { start } from "./serve";

const HELP = `runifold-server — the Runifold server: MCP endpoint, console and HTTP API

Usage:
  runifold-server dev [--port <n>]
      A local server for development, in the current directory: an embedded PostgreSQL whose data
      stays in ./.runifold/pg, migrations, and on the first run a first admin, the tenant "dev" and
      an API key (printed once). Serves on 127.0.0.1 (port 3000 unless --port) and writes
      ./.runifold/dev.json for local workers (runifold-worker --dev). Ctrl-C stops it.

  runifold-server start [--port <n>] [--host <address>] [--no-migrate]
      The production server against DATABASE_URL: applies pending migrations (and, on a store
      without operators, creates a first admin) unless --no-migrate, then serves on HOST:PORT
      (default 127.0.0.1:3000). Needs DATABASE_URL and NEXTAUTH_SECRET; RUNIFOLD_PUBLIC_URL is the
      URL people and clients use (default: the address it binds). See docs/deploy.md.

Options:
  --port <n>       the port (dev: default 3000; start: default PORT, else 3000)
  --host <address> start only: the address to bind (default HOST, else 127.0.0.1)
  --no-migrate     start only: do not apply migrations (a separate job does)
  -h, --help       this text
`;

function parsePort(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    throw new UsageError(`--port must be a port number (1–65535), not ${value}`);
  return port;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      "no-migrate": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    process.stdout.write(HELP);
    if (!command && !values.help) process.exitCode = 2;
    return;
  }
  if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
  const port = parsePort(values.port);
  if (command === "dev") {
    if (values.host || values["no-migrate"]) throw new UsageError("dev serves on 127.0.0.1 and always migrates its own store");
    return dev(appLayout(import.meta.url), { port: port ?? 3000, cwd: process.cwd() });
  }
  if (command === "start") return start(appLayout(import.meta.url), { migrate: !values["no-migrate"], host: values.host, port });
  throw new UsageError(`unknown command ${command} (dev or start; --help)`);
}

main().catch((error: unknown) => {
  if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
    process.stderr.write(`runifold-server: ${(error as Error).message}\n`);
    process.exit(2);
  }
  process.stderr.write(`runifold-server: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
