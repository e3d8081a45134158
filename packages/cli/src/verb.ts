import type { AdminApi } from "./admin-api";
import { CliError, type Parsed } from "./args";

export type Output = { out(text: string): void; json(value: unknown): void };

export type Verb = {
  usage: string;
  summary: string;
  /** Options besides --url, --token and --json; `flags` take no value. */
  options: string[];
  flags?: string[];
  run(api: AdminApi, parsed: Parsed, output: Output): Promise<number>;
};

export const ADMIN = "/api/v1/admin/";
export type Row = Record<string, unknown>;
export const text = (value: unknown) => (value === null || value === undefined ? "-" : String(value));

/** The one positional argument a verb takes (`<id>`, `<keyId>`). */
export function positional(parsed: Parsed, name: string): string {
  const [value, ...rest] = parsed.positionals;
  if (!value || rest.length > 0) throw new CliError(`Expected one <${name}>`);
  return value;
}
