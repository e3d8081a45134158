/**
 * How the console writes an instant (app/(ui)/_components/local-time.tsx). Review F19: dates were
 * hard-coded `en-GB` short dates with no zone, so "02/12/2026" read as February 12 beside a US
 * browser's date pickers.
 */

/** The reader's locale and zone, the zone named: `dateStyle` with `timeStyle: "long"` is the Intl pair that names it. */
export function localTimeText(iso: string, locale?: string, timeZone?: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(locale, { dateStyle: "medium", timeStyle: "long", timeZone });
}

/** What the server renders before the browser's zone is known: one form every reader parses alike. */
export function utcTimeText(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}
