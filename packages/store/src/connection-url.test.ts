import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { describeConnectionUrl, parseConnectionUrl, redactConnectionUrl, withUser } from "./connection-url";

const MULTI = "postgres://owner:s3cr%40t@db1.internal:5432,db2.internal:6432/app?target_session_attrs=read-write&sslmode=require";

describe("DATABASE_URL with several hosts", () => {
  it("is one WHATWG URL cannot read, and one this module and postgres.js both read", () => {
    expect(() => new URL(MULTI)).toThrow();
    expect(parseConnectionUrl(MULTI)).toEqual({
      scheme: "postgres://",
      user: "owner",
      password: "s3cr%40t",
      hosts: ["db1.internal:5432", "db2.internal:6432"],
      rest: "/app?target_session_attrs=read-write&sslmode=require",
    });
    const options = postgres(MULTI).options;
    expect(options.host).toEqual(["db1.internal", "db2.internal"]);
    expect(options.port).toEqual([5432, 6432]);
  });

  it("takes another login with every host, the database and the parameters kept", () => {
    const url = withUser(MULTI, "runifold_web_app", "p@ss/word");
    expect(url).toBe(
      "postgres://runifold_web_app:p%40ss%2Fword@db1.internal:5432,db2.internal:6432/app?target_session_attrs=read-write&sslmode=require",
    );
    const options = postgres(url).options;
    expect([options.user, options.pass, options.database]).toEqual(["runifold_web_app", "p@ss/word", "app"]);
    expect(options.target_session_attrs).toBe("read-write");
  });

  it("prints without the password, in the user part or as a parameter", () => {
    expect(redactConnectionUrl(MULTI)).toBe(
      "postgres://owner:***@db1.internal:5432,db2.internal:6432/app?target_session_attrs=read-write&sslmode=require",
    );
    expect(redactConnectionUrl("postgresql://u@h/db?password=hunter2&x=1")).toBe("postgresql://u@h/db?password=***&x=1");
    expect(describeConnectionUrl(MULTI)).toBe("db1.internal:5432,db2.internal:6432/app");
    expect(redactConnectionUrl("mysql://u:p@h/db")).toBe("(unparseable URL)");
  });

  it("keeps a single host, IPv6 literals and a password with an unencoded @ apart", () => {
    expect(parseConnectionUrl("postgres://u:a@b@[::1]:5433/db").hosts).toEqual(["[::1]:5433"]);
    expect(parseConnectionUrl("postgres://u:a@b@[::1]:5433/db").password).toBe("a@b");
    expect(withUser("postgres://127.0.0.1:5432/postgres", "w", "x")).toBe("postgres://w:x@127.0.0.1:5432/postgres");
  });
});
