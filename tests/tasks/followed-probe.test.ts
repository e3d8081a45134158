import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FollowedProbe } from "../../lib/tasks";
import { freshDatabase } from "../helpers/db";

// The batched fallback poll of a web process's followed tasks (lib/tasks/followed-probe.ts): which
// rounds report a task changed, against real rows.

let db: Awaited<ReturnType<typeof freshDatabase>>;
let tenantId: string;

beforeAll(async () => {
  db = await freshDatabase();
  const [tenant] = await db.sql<{ id: string }[]>`INSERT INTO tenants (slug, name) VALUES ('probe', 'Probe') RETURNING id`;
  tenantId = tenant?.id as string;
});
afterAll(async () => db?.drop());

async function insertRun(): Promise<string> {
  const id = randomUUID();
  await db.sql`
    INSERT INTO runs (id, tenant_id, workflow_name, workflow_version, workflow_key, status, input, origin, checkpoints, claimable_at)
    VALUES (${id}, ${tenantId}, 'probe', 1, 'probe@1', 'queued', '{}', 'engine', 0, now())`;
  return id;
}

describe("FollowedProbe", () => {
  it("reports a task on first sight, after each write and once when its row is gone; never an ID no run has", async () => {
    const present = await insertRun();
    const unknown = randomUUID();
    const reported: string[][] = [];
    const probe = new FollowedProbe(
      db.sql,
      () => [present, unknown],
      (ids) => reported.push([...ids].sort()),
      (error) => {
        throw error;
      },
    );
    const round = async () => {
      reported.length = 0;
      await probe.probe();
      return reported.flat();
    };
    // First sight: the row exists (a change between a subscriber's read and its subscription is caught).
    expect(await round()).toEqual([present]);
    expect(await round()).toEqual([]);
    await db.sql`UPDATE runs SET status_message = 'halfway' WHERE id = ${present}`;
    expect(await round()).toEqual([present]);
    expect(await round()).toEqual([]);
    // Retention deletes only finished runs: the completion is one change, the deletion another.
    await db.sql`UPDATE runs SET status = 'cancelled', claimable_at = NULL WHERE id = ${present}`;
    expect(await round()).toEqual([present]);
    await db.sql`DELETE FROM runs WHERE id = ${present}`;
    expect(await round()).toEqual([present]);
    expect(await round()).toEqual([]);
    // Forgotten, then followed again: seen afresh.
    probe.forget(present);
    expect(await round()).toEqual([]);
  });
});
