import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readMetricsSnapshot } from "../../lib/tasks";
import { freshDatabase } from "../helpers/db";

/**
 * runifold_store_writable (docs/observability.md): during a failover a multi-host URL can land on
 * the standby, which answers every read of a scrape (runifold_store_up stays 1) but takes no write.
 * A read-only session stands for the standby, as in tests/health/health.test.ts.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db?.drop();
});

describe("the store's writability in the metrics snapshot", () => {
  it("is true on a primary and false on a server that refuses writes", async () => {
    expect((await readMetricsSnapshot(db.sql)).writable).toBe(true);
    const readOnly = postgres(db.url, { max: 1, onnotice: () => {}, connection: { default_transaction_read_only: true } });
    try {
      const snapshot = await readMetricsSnapshot(readOnly);
      expect(snapshot.writable).toBe(false);
      expect(snapshot.tenants).toEqual([]); // every read still answered
    } finally {
      await readOnly.end({ timeout: 1 });
    }
  });
});
