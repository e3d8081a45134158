import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setOperatorDisabled } from "../../db/queries/operators";
import {
  authenticateOperator,
  hashPassword,
  LOGIN_THROTTLE,
  parseTrustedProxies,
  resolveClientAddress,
  verifyPassword,
} from "../../lib/auth";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { makeOperator } from "./helpers";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
});
afterAll(async () => {
  await db.drop();
});

describe("operator sign-in", () => {
  it("hashes with scrypt in the documented format", async () => {
    const hash = await hashPassword("s3cret-password");
    expect(hash).toMatch(/^scrypt\$16384\$8\$5\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await verifyPassword("s3cret-password", hash)).toBe(true);
    expect(await verifyPassword("wrong", hash)).toBe(false);
    expect(await verifyPassword("x", "garbage")).toBe(false);
  });

  it("gives one answer for an unknown email, a wrong password and a disabled operator", async () => {
    const op = await makeOperator(sql, "admin", [], "right-password-1");
    const unknown = await authenticateOperator(sql, {
      email: "nobody@ops.test",
      password: "right-password-1",
      clientAddress: "10.0.0.1",
    });
    const wrong = await authenticateOperator(sql, { email: op.email, password: "nope", clientAddress: "10.0.0.1" });
    expect(unknown).toEqual({ ok: false, reason: "invalid" });
    expect(wrong).toEqual(unknown);
    const ok = await authenticateOperator(sql, {
      email: op.email.toUpperCase(),
      password: "right-password-1",
      clientAddress: "10.0.0.1",
    });
    expect(ok).toMatchObject({ ok: true, operator: { id: op.id } });
    await setOperatorDisabled(sql, { operatorId: op.id, disabled: true });
    expect(await authenticateOperator(sql, { email: op.email, password: "right-password-1", clientAddress: "10.0.0.1" })).toEqual(
      unknown,
    );
  });

  it("slows an email down after repeated failures but never refuses the right password, and treats unknown emails alike", async () => {
    const op = await makeOperator(sql, "operator", [], "right-password-2");
    for (const email of [op.email, "ghost@ops.test"]) {
      for (let i = 0; i < LOGIN_THROTTLE.account.limit; i++) {
        expect(await authenticateOperator(sql, { email, password: "bad", clientAddress: `10.1.0.${i}` })).toEqual({
          ok: false,
          reason: "invalid",
        });
      }
      const after = await authenticateOperator(sql, {
        email,
        password: email === op.email ? "right-password-2" : "bad",
        clientAddress: "10.2.0.1",
      });
      if (email === op.email) expect(after).toMatchObject({ ok: true });
      else expect(after).toEqual({ ok: false, reason: "invalid" });
    }
  });

  it("locks a client address after many failures across emails", async () => {
    for (let i = 0; i < LOGIN_THROTTLE.address.limit; i++) {
      await authenticateOperator(sql, { email: `spray-${i}@ops.test`, password: "bad", clientAddress: "192.0.2.7" });
    }
    expect(
      await authenticateOperator(sql, { email: "fresh@ops.test", password: "bad", clientAddress: "192.0.2.7" }),
    ).toMatchObject({ reason: "throttled" });
    expect(await authenticateOperator(sql, { email: "fresh@ops.test", password: "bad", clientAddress: "192.0.2.8" })).toEqual({
      ok: false,
      reason: "invalid",
    });
  });

  it("seeds a first-run admin once, whose printed password signs in", async () => {
    const empty = await freshDatabase(); // the shared one already has operators
    try {
      const first = await seedDemo(empty.sql);
      expect(first.operator?.email).toBe("admin@runifold.local");
      const outcome = await authenticateOperator(empty.sql, {
        email: "admin@runifold.local",
        password: first.operator?.password ?? "",
        clientAddress: null,
      });
      expect(outcome.ok).toBe(true);
      expect((await seedDemo(empty.sql)).operator).toBeUndefined();
    } finally {
      await empty.drop();
    }
  });

  it("reads the client address from the socket peer, and X-Forwarded-For only from a trusted proxy", () => {
    const none = parseTrustedProxies("");
    expect(resolveClientAddress({ peer: "10.0.0.9", forwardedFor: "1.1.1.1", trustedProxies: none })).toBe("10.0.0.9");
    const proxy = parseTrustedProxies("10.0.0.9");
    expect(resolveClientAddress({ peer: "10.0.0.9", forwardedFor: "1.1.1.1, 2.2.2.2", trustedProxies: proxy })).toBe("2.2.2.2");
    expect(resolveClientAddress({ peer: undefined, forwardedFor: "1.1.1.1", trustedProxies: none })).toBeNull();
  });
});
