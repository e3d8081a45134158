import type { CliIo } from "./commands/registry";

/**
 * Everything the CLI prints may carry text from the server (results, status and elicitation
 * messages, names): control characters and bidi overrides are made visible instead of written
 * raw (L4), so a message cannot move the cursor, rewrite a prompt, set the clipboard (OSC 52) or
 * reorder what a person reads. Newlines and tabs stay.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function sanitizeTerminalText(text: string): string {
  return text.replace(UNSAFE, (char) => `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`);
}

type Stream = NodeJS.WritableStream & { isTTY?: boolean };

/**
 * A stream whose string writes are sanitised; `unsanitized` is the stream itself, for readline's own
 * line editing on a terminal (its escape sequences are ours, not the server's).
 */
export function terminalSafe<S extends Stream>(stream: S): S & { unsanitized: S } {
  return new Proxy(stream, {
    get(target, property) {
      if (property === "unsanitized") return target;
      if (property === "write") {
        return (chunk: unknown, ...rest: unknown[]) =>
          (target.write as (...args: unknown[]) => boolean)(
            typeof chunk === "string" ? sanitizeTerminalText(chunk) : chunk,
            ...rest,
          );
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as S & { unsanitized: S };
}

/** The stream under a terminalSafe wrapper (or the stream itself). */
export function unsanitized<S extends Stream>(stream: S): S {
  return (stream as S & { unsanitized?: S }).unsanitized ?? stream;
}

export function print(stream: NodeJS.WritableStream, text = ""): void {
  stream.write(`${sanitizeTerminalText(text)}\n`);
}

/**
 * One JSON document on one line (machine-readable output of --json). JSON.stringify already escapes
 * C0 controls; the rest of the unsafe set is escaped too, which is still the same JSON value.
 */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${sanitizeTerminalText(JSON.stringify(value))}\n`);
}

/** A plain aligned table; empty tables print the headers only. */
export function printTable(io: CliIo, headers: string[], rows: string[][]): void {
  const clean = rows.map((row) => row.map((cell) => sanitizeTerminalText(cell)));
  const widths = headers.map((header, i) => Math.max(header.length, ...clean.map((row) => (row[i] ?? "").length)));
  const format = (row: string[]) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  print(io.stdout, format(headers));
  for (const row of clean) print(io.stdout, format(row));
}

export function isoOrDash(value: Date | string | null | undefined): string {
  if (!value) return "-";
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toISOString();
}
