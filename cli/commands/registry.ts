import type { OptionSpec, Parsed } from "../args";

/** What a command runs with: the process streams and environment, and an abort for waits (Ctrl-C). */
export type CliIo = {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Aborted on the first SIGINT/SIGTERM: commands that wait stop waiting (the task keeps running). */
  signal: AbortSignal;
};

export type Verb = {
  /** The word after the group (`create` in `tenants create`); "" when the group itself is the command (`call <tool>`). */
  name: string;
  /** Positional arguments as shown in help, e.g. `<slug>`. */
  args: string;
  summary: string;
  options: OptionSpec[];
  /** Extra help lines (examples, notes). */
  notes?: string[];
  run(parsed: Parsed, io: CliIo): Promise<number>;
};

export type CommandGroup = {
  name: string;
  summary: string;
  /** Where main help lists the group: store commands use the database, client commands the MCP endpoint. Default store. */
  section?: "store" | "client";
  verbs: Verb[];
};

/**
 * The CLI's command table: group name → group. Each file under commands/ registers its group on
 * import; commands/index.ts imports them all, so adding a group is one import line there.
 */
export const commands = new Map<string, CommandGroup>();

export function registerCommand(group: CommandGroup): void {
  if (commands.has(group.name)) throw new Error(`CLI command group "${group.name}" registered twice`);
  commands.set(group.name, group);
}
