import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor, keysetPage, pageRequest } from "./pagination";

const rows = ["a", "b", "c", "d", "e"].map((slug) => ({ slug }));
const page = (cursor?: string, limit = 2) =>
  keysetPage(
    rows,
    { limit, cursor },
    (row) => [row.slug],
    (row, [slug]) => row.slug > (slug as string),
  );

describe("admin API pages", () => {
  it("walks a list in pages by the last row's key, then says there is no more", () => {
    const first = page();
    expect(first.items.map((r) => r.slug)).toEqual(["a", "b"]);
    const second = page(first.nextCursor as string);
    expect(second.items.map((r) => r.slug)).toEqual(["c", "d"]);
    const third = page(second.nextCursor as string);
    expect(third).toEqual({ items: [{ slug: "e" }], nextCursor: null });
  });

  it("neither repeats nor skips a row when one before the cursor goes away", () => {
    const first = page();
    const shrunk = keysetPage(
      rows.filter((row) => row.slug !== "a"),
      { limit: 2, cursor: first.nextCursor as string },
      (row) => [row.slug],
      (row, [slug]) => row.slug > (slug as string),
    );
    expect(shrunk.items.map((r) => r.slug)).toEqual(["c", "d"]);
  });

  it("refuses cursors it did not make and limits out of range (400s)", () => {
    expect(() => decodeCursor("not-a-cursor", 1)).toThrow("cursor");
    expect(() => decodeCursor(encodeCursor(["a", "b"]), 1)).toThrow("cursor");
    expect(decodeCursor(encodeCursor(["x", "y"]), 2)).toEqual(["x", "y"]);
    expect(() => pageRequest(new URL("http://h/?limit=0"))).toThrow("limit");
    expect(() => pageRequest(new URL("http://h/?limit=201"))).toThrow("limit");
    expect(() => pageRequest(new URL("http://h/?limit=2.5"))).toThrow("limit");
    expect(pageRequest(new URL("http://h/"))).toEqual({ limit: 50, cursor: undefined });
  });
});
