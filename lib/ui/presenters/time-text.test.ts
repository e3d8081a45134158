import { describe, expect, it } from "vitest";
import { localTimeText, utcTimeText } from "./time-text";

const iso = "2026-12-02T16:56:40.000Z";

describe("console time text", () => {
  it("renders the server's first paint in UTC, with the zone named", () => {
    expect(utcTimeText(iso)).toBe("2026-12-02 16:56:40 UTC");
  });

  it("renders in the reader's locale and zone, naming the zone, never as an ambiguous numeric date", () => {
    const us = localTimeText(iso, "en-US", "America/New_York");
    expect(us).toContain("Dec 2, 2026");
    expect(us).toContain("11:56:40");
    expect(us).toContain("EST");
    const uk = localTimeText(iso, "en-GB", "Europe/Paris");
    expect(uk).toContain("2 Dec 2026");
    expect(uk).toContain("17:56:40");
    expect(uk).toMatch(/CET|GMT\+1/);
  });

  it("leaves an unparseable value as it came", () => {
    expect(localTimeText("soon")).toBe("soon");
    expect(utcTimeText("soon")).toBe("soon");
  });
});
