import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { commands } from "../../cli/commands";
import { mainHelp } from "../../cli/help";
import { ROOT } from "../helpers/processes";

/**
 * docs/cli.md holds (issue 34): every command of the CLI's own registry — the table `runifold --help`
 * prints — has a heading of its own in docs/cli.md (`### \`<group> <verb> …\``), and every command the
 * page names, in a heading or in an example (`runifold <group> <verb>`), exists.
 */

const DOC = readFileSync(path.join(ROOT, "docs/cli.md"), "utf8");

/** Every command as `runifold --help` lists it: group, then the verb's words ("" for `call <tool>`). */
const COMMANDS = [...commands.values()].flatMap((group) =>
  group.verbs.map((verb) => [group.name, verb.name].filter(Boolean).join(" ")),
);

/** The command a usage line starts with (the longest that matches a whole word sequence), if any. */
function commandOf(usage: string): string | undefined {
  const words = usage.replace(/^runifold\s+/, "").trim();
  return COMMANDS.filter((command) => words === command || words.startsWith(`${command} `)).sort(
    (a, b) => b.length - a.length,
  )[0];
}

/** The code spans of the page's `###` headings: each one a command's usage. */
function headingUsages(): string[] {
  return DOC.split("\n")
    .filter((line) => line.startsWith("### "))
    .flatMap((line) => [...line.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string));
}

/** `runifold <word> [<word>]` wherever the page writes one (examples, inline code, tables). */
function namedInvocations(): string[] {
  return [...DOC.matchAll(/(?<![\w-])runifold ((?:[a-z][a-z0-9-]*)(?: [a-z][a-z0-9-]*)*)/g)].map((match) => match[1] as string);
}

describe("docs/cli.md", () => {
  it("lists the registry's commands as the CLI's own help does", () => {
    expect(COMMANDS.length).toBeGreaterThan(30);
    const help = mainHelp();
    for (const command of COMMANDS) expect(help, command).toContain(`  ${command}`);
  });

  it("gives every command of the registry a heading", () => {
    const documented = new Set(headingUsages().map(commandOf));
    const missing = COMMANDS.filter((command) => !documented.has(command));
    expect(missing, `commands without a ### heading in docs/cli.md: ${missing.join(", ")}`).toEqual([]);
  });

  it("names no command the CLI does not have", () => {
    const unknownHeadings = headingUsages().filter((usage) => !commandOf(usage));
    expect(unknownHeadings, "### headings naming no CLI command").toEqual([]);
    const groups = new Set([...commands.keys()]);
    const unknown = namedInvocations().filter((words) => {
      const [group] = words.split(" ");
      // `runifold tasks wait`, and a bare group (`runifold tasks` in prose) only if the group exists.
      return !groups.has(group as string) || (words !== group && !commandOf(words));
    });
    expect(unknown, "runifold invocations in docs/cli.md that name no CLI command").toEqual([]);
  });
});
