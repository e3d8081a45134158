import { AppError } from "../../errors";

/** Page sizes of every admin list: `?limit=` 1..200, default 50. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

export type PageRequest = { limit: number; cursor: string | undefined };

/** `?limit=&cursor=` of a list request; a bad limit is a 400 naming the range. */
export function pageRequest(url: URL): PageRequest {
  const raw = url.searchParams.get("limit");
  const limit = raw === null ? DEFAULT_PAGE_SIZE : Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE)
    throw new AppError("bad_request", `limit: an integer from 1 to ${MAX_PAGE_SIZE}`);
  return { limit, cursor: url.searchParams.get("cursor") ?? undefined };
}

/** A cursor is the last row's sort key, opaque to clients (base64url of JSON). */
export function encodeCursor(key: unknown[]): string {
  return Buffer.from(JSON.stringify(key)).toString("base64url");
}

export function decodeCursor(cursor: string, arity: number): string[] {
  try {
    const key = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (Array.isArray(key) && key.length === arity && key.every((part) => typeof part === "string")) return key as string[];
  } catch {
    // answered below
  }
  throw new AppError("bad_request", "cursor: not a cursor this list returned");
}

/**
 * Keyset pagination over a list already in its order (tenants, routes, keys, definitions: lists an
 * admin reads whole — a few hundred rows at most): the rows strictly after the cursor's key, so a
 * row added or removed between pages neither repeats nor shifts the next page. `after(row, key)`
 * says whether a row sorts after the key.
 */
export function keysetPage<T>(
  rows: T[],
  page: PageRequest,
  keyOf: (row: T) => string[],
  after: (row: T, key: string[]) => boolean,
  arity = 1,
): { items: T[]; nextCursor: string | null } {
  const key = page.cursor === undefined ? undefined : decodeCursor(page.cursor, arity);
  const rest = key ? rows.filter((row) => after(row, key)) : rows;
  const items = rest.slice(0, page.limit);
  const last = items.at(-1);
  return { items, nextCursor: rest.length > page.limit && last ? encodeCursor(keyOf(last)) : null };
}
