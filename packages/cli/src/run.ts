import { AdminApiError, createAdminApi } from "./admin-api";
import { CliError, parseArgs } from "./args";
import { VERBS } from "./verbs";

const USAGE = [
  "runifold — administer a Runifold server over HTTP (@runifold/cli)",
  "",
  "Usage: runifold <group> <verb> [options] --url <server> --token <rfo_…>",
  "  --url    the server (default $RUNIFOLD_URL; its origin is used)",
  "  --token  an operator API token from the console's Account → API tokens (default $RUNIFOLD_TOKEN)",
  "  --json   machine-readable output",
  "",
  "Commands:",
  ...Object.entries(VERBS).map(([, verb]) => `  ${verb.usage}\n      ${verb.summary}`),
  "",
  "Exit codes: 0 done (tasks get: completed), 1 completed with isError, 2 failed, 3 cancelled, 4 error.",
  "Store commands (tenants create, operators, db, retention) run on the server host: npm run cli in the repository.",
].join("\n");

export type CliStreams = { stdout: (text: string) => void; stderr: (text: string) => void; env: NodeJS.ProcessEnv };

/** Runs one command line; resolves to the exit code. */
export async function runCli(argv: string[], io: CliStreams): Promise<number> {
  const name = argv.slice(0, 2).join(" ");
  const verb = VERBS[name];
  if (!verb) {
    if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h") {
      io.stdout(USAGE);
      return argv.length === 0 ? 4 : 0;
    }
    io.stderr(`error: unknown command "${name}" (runifold --help lists them)`);
    return 4;
  }
  try {
    const flags = new Set(["json", ...(verb.flags ?? [])]);
    const parsed = parseArgs(argv.slice(2), flags);
    if (parsed.help) {
      io.stdout(`Usage: runifold ${verb.usage}\n  ${verb.summary}\n  Also: --url <server> --token <rfo_…>`);
      return 0;
    }
    const allowed = new Set(["url", "token", ...verb.options]);
    const unknown = [...parsed.values.keys()].filter((option) => !allowed.has(option));
    if (unknown.length > 0) throw new CliError(`Unknown option --${unknown[0]}`);
    const url = parsed.values.get("url") ?? io.env.RUNIFOLD_URL;
    const token = parsed.values.get("token") ?? io.env.RUNIFOLD_TOKEN;
    if (!url) throw new CliError("The server is needed: pass --url or set RUNIFOLD_URL");
    if (!token) throw new CliError("An operator API token is needed: pass --token or set RUNIFOLD_TOKEN (Account → API tokens)");
    let api: ReturnType<typeof createAdminApi>;
    try {
      api = createAdminApi({ url, token });
    } catch {
      throw new CliError(`Invalid --url "${url}"`);
    }
    return await verb.run(api, parsed, { out: io.stdout, json: (value) => io.stdout(JSON.stringify(value)) });
  } catch (error) {
    if (error instanceof CliError || error instanceof AdminApiError) {
      const hint = error instanceof AdminApiError && error.status === 401 ? " (check --token or RUNIFOLD_TOKEN)" : "";
      io.stderr(`error: ${error.message}${hint}`);
      return 4;
    }
    throw error;
  }
}
