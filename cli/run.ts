import { McpAuthError, McpProtocolError } from "@runifold/client";
import { CliError, parseArgs, UsageError } from "./args";
import { type CliIo, commands } from "./commands";
import { EXIT } from "./exit-codes";
import { groupHelp, mainHelp } from "./help";
import { print } from "./output";

/** Runs one CLI invocation and returns its exit code. Errors become one line on stderr (stacks only with RUNIFOLD_DEBUG=1). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  let helpTopic = "";
  try {
    if (name === undefined || name === "--help" || name === "-h" || name === "help") {
      print(name === undefined ? io.stderr : io.stdout, mainHelp());
      return name === undefined ? EXIT.error : EXIT.completed;
    }
    const group = commands.get(name);
    if (!group) throw new UsageError(`Unknown command "${name}"`);
    helpTopic = ` ${group.name}`;
    const direct = group.verbs.find((verb) => verb.name === "");
    const verbName = direct ? "" : rest[0];
    if (!direct && (verbName === undefined || verbName === "--help" || verbName === "-h")) {
      print(verbName === undefined ? io.stderr : io.stdout, groupHelp(group));
      return verbName === undefined ? EXIT.error : EXIT.completed;
    }
    const verb = direct ?? group.verbs.find((v) => v.name === verbName);
    if (!verb) throw new UsageError(`Unknown command "${name} ${verbName}"`);
    const parsed = parseArgs(direct ? rest : rest.slice(1), verb.options);
    if (parsed.help) {
      print(io.stdout, groupHelp(group, verb));
      return EXIT.completed;
    }
    return await verb.run(parsed, io);
  } catch (error) {
    return reportError(io, error, helpTopic);
  }
}

function reportError(io: CliIo, error: unknown, helpTopic: string): number {
  if (io.env.RUNIFOLD_DEBUG === "1" && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
  if (error instanceof UsageError) {
    io.stderr.write(`error: ${error.message}\nRun "runifold${helpTopic} --help" for usage.\n`);
    return EXIT.error;
  }
  if (error instanceof CliError) {
    io.stderr.write(`error: ${error.message}\n`);
    return error.exitCode;
  }
  if (error instanceof McpAuthError) {
    const hint = error.httpStatus === 401 ? " (pass --key or set RUNIFOLD_KEY)" : "";
    io.stderr.write(`error: ${error.message} (HTTP ${error.httpStatus})${hint}\n`);
    return EXIT.error;
  }
  if (error instanceof McpProtocolError) {
    const code = error.kind === "rpc" ? ` (code ${error.code})` : "";
    io.stderr.write(`error: ${error.message}${code}\n`);
    return EXIT.error;
  }
  if (io.signal.aborted) {
    io.stderr.write("interrupted\n");
    return EXIT.interrupted;
  }
  io.stderr.write(`error: ${describeError(error)}\n`);
  return EXIT.error;
}

/** One line for anything else: database errors name the database, the rest their message. */
function describeError(error: unknown): string {
  const e = error as { message?: unknown; code?: unknown; errno?: unknown; severity?: unknown };
  const message = typeof e?.message === "string" && e.message ? e.message.split("\n")[0] : String(error);
  if (typeof e?.severity === "string" || e?.code === "ECONNREFUSED" || e?.code === "ENOTFOUND" || e?.code === "CONNECT_TIMEOUT") {
    return `database: ${message}`;
  }
  return message as string;
}
