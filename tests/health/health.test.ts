import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkHealth, healthResponse } from "../../lib/health";
import { freshDatabase } from "../helpers/db";

let db: Awaited<ReturnType<typeof freshDatabase>>;

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.drop();
});

const register = (id: string, heartbeatAgo: string, stopped = false) =>
  db.sql.unsafe(
    `INSERT INTO worker_registrations (id, hostname, pid, workflows, concurrency, heartbeat_at, stopped_at)
     VALUES ($1, 'h', '1', '{}', '1', now() - $2::interval, ${stopped ? "now()" : "NULL"})`,
    [id, heartbeatAgo],
  );

describe("GET /api/health", () => {
  it("is ready on a migrated database and counts only recently heartbeating, running workers", async () => {
    expect(await checkHealth(db.sql)).toEqual({ database: "ok", migrations: "applied", workers: { online: 0 }, ok: true });
    await register("fresh", "1 second");
    await register("stale", "10 minutes");
    await register("stopped", "1 second", true);
    const response = await healthResponse(() => db.sql);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ database: "ok", migrations: "applied", workers: { online: 1 }, ok: true });
  });

  it("answers 503 with migrations pending when a shipped migration is not recorded", async () => {
    const [last] = await db.sql`SELECT tag FROM runifold_migrations ORDER BY tag DESC LIMIT 1`;
    await db.sql`DELETE FROM runifold_migrations WHERE tag = ${last?.tag}`;
    try {
      const response = await healthResponse(() => db.sql);
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ database: "ok", migrations: "pending", ok: false });
    } finally {
      await db.sql`INSERT INTO runifold_migrations (tag, hash) VALUES (${last?.tag}, 'restored')`;
    }
  });

  it("answers 503 with the database read-only when the server answering takes no writes (a standby, a failover in progress)", async () => {
    // A session that cannot write stands for a standby: the probe reads transaction_read_only as a standby reports it.
    const readOnly = postgres(db.url, { max: 1, onnotice: () => {}, connection: { default_transaction_read_only: true } });
    try {
      const response = await healthResponse(() => readOnly);
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({
        database: "read-only",
        migrations: "pending",
        workers: { online: 0 },
        ok: false,
        reason: "the database answers but refuses writes (transaction_read_only is on)",
      });
    } finally {
      await readOnly.end({ timeout: 1 });
    }
  });

  it("answers 503 with the database unreachable, also when no pool can be built", async () => {
    const dead = postgres("postgres://postgres:x@127.0.0.1:1/none", { max: 1, connect_timeout: 1, onnotice: () => {} });
    try {
      const response = await healthResponse(() => dead);
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({
        database: "unreachable",
        migrations: "pending",
        workers: { online: 0 },
        ok: false,
        reason: "the database is unreachable (ECONNREFUSED)",
      });
    } finally {
      await dead.end({ timeout: 1 });
    }
    const noPool = await healthResponse(() => {
      throw new Error("No database");
    });
    expect(noPool.status).toBe(503);
  });
});
