import { CHANNELS, createRun } from "@runifold/sdk";
import { notifyAfterCommit } from "@runifold/sdk/testing";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../helpers/db";
import { waitFor } from "../helpers/wait-for";

/**
 * Wake-ups leave after the write's commit, not inside it (packages/sdk/src/ops/notify-after-commit.ts):
 * a NOTIFY inside a transaction serialises its commit with every other notifying one. What must hold:
 * nobody is told before the write is visible, a caller's transaction still notifies only at its
 * commit, and notifications issued together leave together.
 */
let db: { sql: postgres.Sql; url: string; drop(): Promise<void> };
let tenantId: string;

beforeAll(async () => {
  db = await freshDatabase();
  const [row] = await db.sql<{ id: string }[]>`INSERT INTO tenants (slug, name) VALUES ('wake', 'wake') RETURNING id`;
  tenantId = row?.id as string;
});
afterAll(async () => db?.drop());

/** Collects a channel's payloads until stopped. */
async function listen(channel: string) {
  const payloads: string[] = [];
  const listener = await db.sql.listen(channel, (payload) => payloads.push(payload));
  return { payloads, stop: () => listener.unlisten() };
}

describe("wake-up notifications", () => {
  it("a create on a pool wakes the workers with its workflow key, and the run is visible by then", async () => {
    const seen: boolean[] = [];
    // The notification may arrive before createRun returns (a lone create notifies at its commit):
    // the listener looks the run up by its workflow, not by the id createRun has yet to hand back.
    const listener = await db.sql.listen(CHANNELS.wake, (payload) => {
      if (payload !== "wake-pool@1") return;
      void db.sql`SELECT 1 FROM runs WHERE workflow_key = 'wake-pool@1'`.then((rows) => seen.push(rows.length === 1));
    });
    try {
      await createRun(db.sql, { tenantId, workflowName: "wake-pool", workflowVersion: 1, input: {} });
      await waitFor(
        () => seen.length,
        (n) => n > 0,
        { describe: "the wake notification" },
      );
      expect(seen).toEqual([true]);
    } finally {
      await listener.unlisten();
    }
  });

  it("concurrent creates on one pool notify after their commits, coalesced: fewer notifications than creates", async () => {
    const wake = await listen(CHANNELS.wake);
    try {
      await Promise.all(
        Array.from({ length: 40 }, () =>
          createRun(db.sql, { tenantId, workflowName: "wake-burst", workflowVersion: 1, input: {} }),
        ),
      );
      await waitFor(
        () => wake.payloads.filter((p) => p === "wake-burst@1").length,
        (n) => n > 0,
        { describe: "a wake-up" },
      );
      // The first create is the pool's only one in flight (inline NOTIFY); the rest leave in a few
      // coalesced statements, each delivering the key once (Postgres folds duplicates in a transaction).
      expect(wake.payloads.filter((p) => p === "wake-burst@1").length).toBeLessThan(40);
    } finally {
      await wake.stop();
    }
  });

  it("a create inside a caller's transaction notifies at that transaction's commit, not before", async () => {
    const wake = await listen(CHANNELS.wake);
    try {
      await db.sql.begin(async (tx) => {
        await createRun(tx, { tenantId, workflowName: "wake-tx", workflowVersion: 1, input: {} });
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(wake.payloads.filter((p) => p === "wake-tx@1")).toEqual([]);
      });
      await waitFor(
        () => wake.payloads,
        (p) => p.includes("wake-tx@1"),
        { describe: "the notification after commit" },
      );
    } finally {
      await wake.stop();
    }
  });

  it("notifications issued in one tick leave in one statement: duplicates once, distinct ones each", async () => {
    const wake = await listen("runifold_test_burst");
    try {
      for (let i = 0; i < 50; i++) notifyAfterCommit(db.sql, "runifold_test_burst", "same");
      for (const payload of ["a", "b", "c"]) notifyAfterCommit(db.sql, "runifold_test_burst", payload);
      await waitFor(
        () => wake.payloads.length,
        (n) => n >= 4,
        { describe: "the burst's notifications" },
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect([...wake.payloads].sort()).toEqual(["a", "b", "c", "same"]);
    } finally {
      await wake.stop();
    }
  });
});
