/** A mistake in how the CLI was called, or a refusal: exit code 4 with the message (docs/cli.md). */
export class CliError extends Error {}

export type Parsed = { positionals: string[]; values: Map<string, string>; flags: Set<string>; help: boolean };

/**
 * `--name value`, `--name=value` and flags (`flags`: the options that take no value); `-h`/`--help`.
 * Unknown options are checked by the verb (`allowed`).
 */
export function parseArgs(argv: string[], flags: ReadonlySet<string>): Parsed {
  const parsed: Parsed = { positionals: [], values: new Map(), flags: new Set(), help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "-h" || arg === "--help") parsed.help = true;
    else if (arg.startsWith("--")) {
      const [name, inline] = arg.slice(2).split(/=(.*)/s) as [string, string | undefined];
      if (flags.has(name)) parsed.flags.add(name);
      else {
        const value = inline ?? argv[++i];
        if (value === undefined) throw new CliError(`--${name} needs a value`);
        parsed.values.set(name, value);
      }
    } else parsed.positionals.push(arg);
  }
  return parsed;
}

export function required(parsed: Parsed, name: string): string {
  const value = parsed.values.get(name);
  if (value === undefined) throw new CliError(`--${name} is required`);
  return value;
}

export function intValue(parsed: Parsed, name: string): number | undefined {
  const raw = parsed.values.get(name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new CliError(`--${name} must be an integer`);
  return value;
}

/** A table with a header row, columns padded to their widest cell. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(headers), ...rows.map(line)].join("\n");
}
