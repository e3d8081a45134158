/** A mistake in how the CLI was called: exit code 4, the message and a pointer to --help. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly helpTopic?: string,
  ) {
    super(message);
    this.name = "UsageError";
  }
}

/** A failure the user can act on (unknown tenant, duplicate slug, …): exit code 4, message only. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 4,
  ) {
    super(message);
    this.name = "CliError";
  }
}

export type OptionSpec = {
  name: string;
  /** Placeholder of the option's value in help; absent for flags. */
  value?: string;
  description: string;
  multiple?: boolean;
  required?: boolean;
};

export type Parsed = {
  positionals: string[];
  flags: Set<string>;
  values: Map<string, string[]>;
  help: boolean;
};

/**
 * `--name value`, `--name=value`, flags, repeatable options, `--` (everything after is
 * positional), `-h`/`--help`. Unknown options and missing values are usage errors.
 */
export function parseArgs(argv: string[], specs: OptionSpec[]): Parsed {
  const byName = new Map(specs.map((spec) => [spec.name, spec]));
  const parsed: Parsed = { positionals: [], flags: new Set(), values: new Map(), help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      parsed.positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === "-h" || arg === "--help") {
      parsed.help = true;
      continue;
    }
    if (!arg.startsWith("--") || arg === "-") {
      if (arg.startsWith("-") && arg !== "-") throw new UsageError(`Unknown option ${arg}`);
      parsed.positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const spec = byName.get(name);
    if (!spec) throw new UsageError(`Unknown option --${name}`);
    if (!spec.value) {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      parsed.flags.add(name);
      continue;
    }
    let value: string | undefined;
    if (eq >= 0) value = arg.slice(eq + 1);
    else if (i + 1 < argv.length) value = argv[++i];
    if (value === undefined) throw new UsageError(`--${name} needs a value (${spec.value})`);
    const list = parsed.values.get(name) ?? [];
    if (list.length > 0 && !spec.multiple) throw new UsageError(`--${name} given more than once`);
    list.push(value);
    parsed.values.set(name, list);
  }
  if (!parsed.help) {
    for (const spec of specs) {
      if (spec.required && !parsed.values.has(spec.name)) throw new UsageError(`--${spec.name} is required`);
    }
  }
  return parsed;
}

export function option(parsed: Parsed, name: string): string | undefined {
  return parsed.values.get(name)?.[0];
}

export function options(parsed: Parsed, name: string): string[] {
  return parsed.values.get(name) ?? [];
}

/** A required option (the spec's `required` makes parseArgs check presence; this narrows the type). */
export function requiredOption(parsed: Parsed, name: string): string {
  const value = option(parsed, name);
  if (value === undefined) throw new UsageError(`--${name} is required`);
  return value;
}

export function intOption(parsed: Parsed, name: string, bounds: { min?: number; max?: number } = {}): number | undefined {
  const raw = option(parsed, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = bounds;
  if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
    const range = bounds.max === undefined ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
    throw new UsageError(`--${name} must be ${range} (got "${raw}")`);
  }
  return value;
}

export function positionals(parsed: Parsed, names: string[], rest?: string): string[] {
  const missing = names.slice(parsed.positionals.length);
  if (missing.length > 0) throw new UsageError(`Missing <${missing[0]}>`);
  if (!rest && parsed.positionals.length > names.length)
    throw new UsageError(`Unexpected argument "${parsed.positionals[names.length]}"`);
  return parsed.positionals;
}

/** JSON.parse with a usage error naming the option. */
export function parseJsonOption(raw: string, what: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new UsageError(`${what} is not valid JSON: ${raw.length > 60 ? `${raw.slice(0, 60)}…` : raw}`);
  }
}
