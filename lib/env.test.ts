import { describe, expect, it } from "vitest";
import { readEnv } from "./env";

describe("readEnv", () => {
  it("applies defaults", () => {
    const env = readEnv({});
    expect(env).toMatchObject({ PORT: 3000, HOST: "127.0.0.1", RUNIFOLD_WORKERS: 1 });
  });

  it("fails fast naming the bad variable", () => {
    expect(() => readEnv({ PORT: "seventy" })).toThrow(/PORT/);
    expect(() => readEnv({ DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL/);
  });

  it("refuses the insecure loopback tenant on a non-loopback bind", () => {
    expect(() => readEnv({ RUNIFOLD_INSECURE_LOOPBACK_TENANT: "conformance", HOST: "0.0.0.0" })).toThrow(
      /RUNIFOLD_INSECURE_LOOPBACK_TENANT/,
    );
    expect(readEnv({ RUNIFOLD_INSECURE_LOOPBACK_TENANT: "conformance" }).RUNIFOLD_INSECURE_LOOPBACK_TENANT).toBe("conformance");
  });
});
