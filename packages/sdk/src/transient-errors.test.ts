import { describe, expect, it } from "vitest";
import { isTransientStoreError } from "./transient-errors";

describe("transient store errors", () => {
  it("are connection-level failures only", () => {
    for (const code of [
      "ECONNREFUSED",
      "ECONNRESET",
      "CONNECTION_CLOSED",
      "CONNECT_TIMEOUT",
      "08006",
      "57P01",
      "53300",
      "40001",
      "40P01",
      "25006",
    ])
      expect(isTransientStoreError(Object.assign(new Error("x"), { code })), code).toBe(true);
  });

  it("never include errors without a code, bad data or bugs", () => {
    expect(isTransientStoreError(new TypeError("Do not know how to serialize a BigInt"))).toBe(false);
    expect(isTransientStoreError(new RangeError("Invalid time value"))).toBe(false);
    for (const code of ["23505", "22P02", "42P01", "ERR_INVALID_ARG_TYPE", "57014"])
      expect(isTransientStoreError(Object.assign(new Error("x"), { code })), code).toBe(false);
    expect(isTransientStoreError(undefined)).toBe(false);
  });
});
