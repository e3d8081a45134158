import type { CliIo } from "./commands/registry";

export function print(stream: NodeJS.WritableStream, text = ""): void {
  stream.write(`${text}\n`);
}

/** One JSON document on one line (machine-readable output of --json). */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value)}\n`);
}

/** A plain aligned table; empty tables print the headers only. */
export function printTable(io: CliIo, headers: string[], rows: string[][]): void {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => (row[i] ?? "").length)));
  const format = (row: string[]) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  print(io.stdout, format(headers));
  for (const row of rows) print(io.stdout, format(row));
}

export function isoOrDash(value: Date | string | null | undefined): string {
  if (!value) return "-";
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toISOString();
}
