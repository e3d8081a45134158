import { describe, expect, it } from "vitest";
import { AppError } from "../../errors";
import { decodeCursor, encodeCursor } from "./task-list";

const last = { createdAt: "2026-03-01T12:34:56.789Z", id: "3f1d2c4b-1111-4222-8333-444455556666" };
const raw = (text: string) => Buffer.from(text).toString("base64url");

describe("the task list's page cursor", () => {
  it("round-trips where a page ends", () => {
    const cursor = encodeCursor(last);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual(last);
  });

  it("refuses a cursor without a date, without a UUID, or not ours at all, as a bad request", () => {
    for (const cursor of [
      "",
      raw("garbage"),
      raw(`${last.createdAt}|`),
      raw(`|${last.id}`),
      raw(`yesterday|${last.id}`),
      raw(`${last.createdAt}|not-a-uuid`),
    ]) {
      expect(() => decodeCursor(cursor), cursor).toThrow(AppError);
      expect(() => decodeCursor(cursor), cursor).toThrow("Bad cursor.");
    }
  });
});
