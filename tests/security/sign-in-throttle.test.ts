import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countLoginThrottleRows, purgeLoginThrottle, reserveLoginAttempt } from "../../db/queries/login-throttle";
import { accountDelayMs, authenticateOperator, LOGIN_THROTTLE } from "../../lib/auth";
import { freshDatabase } from "../helpers/db";
import { makeOperator } from "../ui/helpers";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
});
afterAll(async () => {
  await db.drop();
});

/** Ends every lock now, as if its time had passed. */
const expireLocks = () =>
  sql`UPDATE login_throttle SET locked_until = now() - interval '1 second' WHERE locked_until IS NOT NULL`;

describe("sign-in throttling that holds (H1)", () => {
  it("evaluates no more attempts than the limit when they arrive at once (before: every one of them)", async () => {
    const op = await makeOperator(sql, "admin", [], "right-password-3");
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        authenticateOperator(sql, { email: op.email, password: "bad", clientAddress: "10.3.0.1" }),
      ),
    );
    const evaluated = results.filter((r) => !r.ok && r.reason === "invalid").length;
    expect(evaluated).toBeLessThanOrEqual(LOGIN_THROTTLE.pair.limit);
    expect(results.filter((r) => !r.ok && r.reason === "throttled").length).toBeGreaterThanOrEqual(
      30 - LOGIN_THROTTLE.pair.limit,
    );
  });

  it("counts each concurrent reservation once (the upsert serialises on the row)", async () => {
    const policy = { limit: 3, windowMs: 60_000, baseLockMs: 60_000, maxLockMs: 60_000 };
    const reservations = await Promise.all(Array.from({ length: 25 }, () => reserveLoginAttempt(sql, "test:burst", policy)));
    expect(reservations.filter((r) => r.allowed)).toHaveLength(3);
  });

  it("doubles the lock each time and caps it", async () => {
    const policy = { limit: 1, windowMs: 60_000, baseLockMs: 10_000, maxLockMs: 35_000 };
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      expect((await reserveLoginAttempt(sql, "test:backoff", policy)).allowed).toBe(true); // the limit-th is evaluated, and locks
      const refused = await reserveLoginAttempt(sql, "test:backoff", policy);
      if (refused.allowed) throw new Error("expected a lock");
      waits.push(refused.retryAfterSeconds);
      await sql`UPDATE login_throttle SET locked_until = now() - interval '1 second' WHERE key = 'test:backoff'`;
    }
    expect(waits).toEqual([10, 20, 35, 35]);
  });

  it("does not lock the right person out: an attacker's address locks its own pair first, and locks end", async () => {
    const op = await makeOperator(sql, "admin", [], "right-password-4");
    for (let i = 0; i < LOGIN_THROTTLE.pair.limit + 2; i++) {
      await authenticateOperator(sql, { email: op.email, password: "guess", clientAddress: "203.0.113.66" });
    }
    const fromAttacker = await authenticateOperator(sql, {
      email: op.email,
      password: "right-password-4",
      clientAddress: "203.0.113.66",
    });
    expect(fromAttacker).toMatchObject({ ok: false, reason: "throttled" });
    const fromOwner = await authenticateOperator(sql, {
      email: op.email,
      password: "right-password-4",
      clientAddress: "192.0.2.10",
    });
    expect(fromOwner.ok).toBe(true);
    await expireLocks();
    const later = await authenticateOperator(sql, {
      email: op.email,
      password: "right-password-4",
      clientAddress: "203.0.113.66",
    });
    expect(later.ok).toBe(true);
  });

  it("refuses over-long emails and passwords before any hashing", async () => {
    const started = Date.now();
    const outcome = await authenticateOperator(sql, {
      email: `${"a".repeat(400)}@x.test`,
      password: "p".repeat(10_000),
      clientAddress: null,
    });
    expect(outcome).toEqual({ ok: false, reason: "invalid" });
    expect(Date.now() - started).toBeLessThan(500);
  });

  it("keeps the table bounded: idle rows are purged (before: never)", async () => {
    await sql`INSERT INTO login_throttle (key, failures, updated_at)
              SELECT 'email:spray-' || g || '@x.test', 1, now() - interval '2 days' FROM generate_series(1, 2000) g`;
    await purgeLoginThrottle(sql, LOGIN_THROTTLE.idleMs);
    expect(await countLoginThrottleRows(sql)).toBeLessThan(50);
  });
});

describe("no lockout of the right password (review F6)", () => {
  it("attempts from other addresses cannot lock out the right password", async () => {
    const op = await makeOperator(sql, "admin", [], "right-password-5");
    for (const address of ["10.9.0.1", "10.9.0.2"])
      for (let i = 0; i < LOGIN_THROTTLE.pair.limit; i++)
        await authenticateOperator(sql, { email: op.email, password: "bad", clientAddress: address });
    const ok = await authenticateOperator(sql, { email: op.email, password: "right-password-5", clientAddress: "10.9.9.9" });
    expect(ok.ok).toBe(true);
  });

  it("an account attacked from many addresses is slowed down, never refused: the right password signs in within the longest delay", async () => {
    const op = await makeOperator(sql, "admin", [], "right-password-6");
    // As if a thousand failures had arrived from everywhere within the window.
    await sql`INSERT INTO login_throttle (key, failures, window_started_at, updated_at)
              VALUES (${`email:${op.email}`}, 1000, now(), now())`;
    const started = Date.now();
    const outcome = await authenticateOperator(sql, {
      email: op.email,
      password: "right-password-6",
      clientAddress: "10.9.9.10",
    });
    const waited = Date.now() - started;
    expect(outcome.ok).toBe(true);
    expect(waited).toBeGreaterThanOrEqual(LOGIN_THROTTLE.account.maxDelayMs - 50);
    expect(waited).toBeLessThan(LOGIN_THROTTLE.account.maxDelayMs + 3_000);
    // A success clears the account's count: the next sign-in is not slowed.
    expect(await sql`SELECT 1 FROM login_throttle WHERE key = ${`email:${op.email}`}`).toHaveLength(0);
  });

  it("below the account's limit nothing is slowed; the first attempt past it waits the base delay", async () => {
    const { limit, baseDelayMs, maxDelayMs } = LOGIN_THROTTLE.account;
    expect([accountDelayMs(1), accountDelayMs(limit)]).toEqual([0, 0]);
    expect([accountDelayMs(limit + 1), accountDelayMs(limit + 2), accountDelayMs(10_000)]).toEqual([
      baseDelayMs,
      2 * baseDelayMs,
      maxDelayMs,
    ]);
    const op = await makeOperator(sql, "operator", [], "right-password-7");
    for (let i = 0; i < limit; i++)
      await authenticateOperator(sql, { email: op.email, password: "bad", clientAddress: `10.8.${i}.1` });
    const started = Date.now();
    expect(
      (await authenticateOperator(sql, { email: op.email, password: "right-password-7", clientAddress: "10.8.99.1" })).ok,
    ).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(LOGIN_THROTTLE.account.baseDelayMs - 50);
  });
});

describe("per-address limits and IPv6 (review F15)", () => {
  it("addresses of one IPv6 /64 share the address limit; another /64 does not", async () => {
    for (let i = 0; i < LOGIN_THROTTLE.address.limit; i++)
      await authenticateOperator(sql, {
        email: `v6-${i}@x.test`,
        password: "bad",
        clientAddress: `2001:db8:1:2::${(i + 1).toString(16)}`,
      });
    expect(
      await authenticateOperator(sql, { email: "v6-next@x.test", password: "bad", clientAddress: "2001:db8:1:2:ffff::77" }),
    ).toMatchObject({ reason: "throttled" });
    expect(
      await authenticateOperator(sql, { email: "v6-next@x.test", password: "bad", clientAddress: "2001:db8:1:3::1" }),
    ).toEqual({
      ok: false,
      reason: "invalid",
    });
  });
});
