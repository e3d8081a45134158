import type { OptionSpec } from "./args";
import { type CommandGroup, commands, type Verb } from "./commands/registry";

const EXIT_CODES = [
  "Exit codes:",
  "  0  completed (and every other command that succeeded)",
  "  1  completed, but the tool's result has isError: true",
  "  2  the task failed",
  "  3  the task was cancelled",
  "  4  usage, auth, protocol, network or database error",
  "  5  still running when the CLI stopped waiting (--deadline-ms reached, or input required and not given)",
  "  130  interrupted (Ctrl-C) while waiting; the task keeps running",
];

function usageOf(group: CommandGroup, verb: Verb): string {
  return ["runifold", group.name, verb.name, verb.args].filter(Boolean).join(" ");
}

function optionLines(options: OptionSpec[]): string[] {
  const labels = options.map((o) => `--${o.name}${o.value ? ` ${o.value}` : ""}`);
  const width = Math.max(0, ...labels.map((label) => label.length));
  return options.map((o, i) => `    ${(labels[i] as string).padEnd(width)}  ${o.description}${o.required ? " (required)" : ""}`);
}

export function mainHelp(): string {
  const lines = [
    "runifold — Runifold's command line (also: npm run cli -- <command>)",
    "",
    "Usage: runifold <command> [options]",
  ];
  const sections: [string, "store" | "client"][] = [
    ["Store commands (DATABASE_URL, or the embedded database of a running `npm start`):", "store"],
    ["MCP client commands (--url / RUNIFOLD_URL, --key / RUNIFOLD_KEY):", "client"],
  ];
  for (const [title, section] of sections) {
    const entries = [...commands.values()]
      .filter((group) => (group.section ?? "store") === section)
      .flatMap((group) => group.verbs.map((verb) => [usageOf(group, verb).replace(/^runifold /, ""), verb.summary] as const));
    if (entries.length === 0) continue;
    const width = Math.max(...entries.map(([usage]) => usage.length));
    lines.push("", title, ...entries.map(([usage, summary]) => `  ${usage.padEnd(width)}  ${summary}`));
  }
  lines.push("", ...EXIT_CODES, "", 'Run "runifold <command> --help" for its options. RUNIFOLD_DEBUG=1 prints stack traces.');
  return lines.join("\n");
}

export function groupHelp(group: CommandGroup, only?: Verb): string {
  const lines: string[] = [];
  if (!only) lines.push(`runifold ${group.name} — ${group.summary}`, "");
  for (const verb of only ? [only] : group.verbs) {
    lines.push(`Usage: ${usageOf(group, verb)}${verb.options.length > 0 ? " [options]" : ""}`, `  ${verb.summary}`);
    if (verb.options.length > 0) lines.push("  Options:", ...optionLines(verb.options));
    for (const note of verb.notes ?? []) lines.push(`  ${note}`);
    lines.push("");
  }
  if (group.section === "client") lines.push(...EXIT_CODES);
  return lines.join("\n").trimEnd();
}
