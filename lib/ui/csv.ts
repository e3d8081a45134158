/**
 * CSV for downloads (RFC 4180: comma-separated, CRLF line ends, a field quoted when it holds a
 * comma, quote, CR or LF, with quotes doubled). A cell that a spreadsheet would read as a formula —
 * text starting with `=`, `+`, `-`, `@`, a tab or a CR (OWASP "CSV injection") — is prefixed with a
 * single quote, so an audit field an attacker chose (an email typed at sign-in, a key name) is shown
 * as text and never evaluated when an operator opens the export.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: unknown): string {
  let text: string;
  if (value === null || value === undefined) text = "";
  else if (typeof value === "string") text = value;
  else if (typeof value === "object") text = JSON.stringify(value);
  else text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, CRLF-terminated. */
export function csvRow(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(",")}\r\n`;
}
