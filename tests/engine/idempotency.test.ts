import { createRun } from "@runifold/sdk";
import { describe, expect, it } from "vitest";
import { seedDemo } from "../../workflows/demo/seed";
import { modernRequest, TASKS_ONLY } from "../helpers/mcp-envelope";
import { startMcpTestServer } from "../helpers/mcp-server";
import { waitFor } from "../helpers/wait-for";
import { engineStore, TENANT } from "./support/harness";

/** Idempotent creation: a caller-supplied key returns the existing run (scoped, expiring). */
const store = engineStore();

const params = (key: string, extra: Record<string, unknown> = {}) => ({
  tenantId: TENANT,
  workflowName: "anything",
  workflowVersion: 1,
  input: {},
  idempotency: { key, ...extra },
});

describe("createRun with an idempotency key", () => {
  it("returns the first run for the same tenant, scope and key, even under concurrent calls", async () => {
    const attempts = await Promise.all(Array.from({ length: 10 }, () => createRun(store.sql, params("order-42"))));
    const ids = new Set(attempts.map((run) => run.id));
    expect(ids.size).toBe(1);
    expect(attempts.filter((run) => run.created)).toHaveLength(1);
    const [count] = await store.sql`SELECT count(*)::int AS n FROM runs WHERE id IN ${store.sql([...ids])}`;
    expect(count?.n).toBe(1);
    const again = await createRun(store.sql, params("order-42"));
    expect(again).toMatchObject({ id: attempts[0]?.id, created: false });
  });

  it("starts a new run for another scope, another key, or once the key expired", async () => {
    const first = await createRun(store.sql, params("k", { ttlMs: 200 }));
    const otherScope = await createRun(store.sql, params("k", { scope: "tool:other" }));
    const otherKey = await createRun(store.sql, params("k2"));
    expect(new Set([first.id, otherScope.id, otherKey.id]).size).toBe(3);
    // Until the key's ttl passes (by the store's clock) the same call keeps answering the first run.
    const afterExpiry = await waitFor(
      () => createRun(store.sql, params("k")),
      (run) => run.created || run.id !== first.id,
      { describe: "the key to expire" },
    );
    expect(afterExpiry.created).toBe(true);
    expect(afterExpiry.id).not.toBe(first.id);
  });
});

describe("tools/call with _meta io.runifold/idempotencyKey", () => {
  it("answers a retried call with the same task, and a call without a key with a new one", async () => {
    const seeded = await seedDemo(store.sql);
    const server = await startMcpTestServer(store.sql, { worker: false });
    try {
      const call = async (meta: Record<string, unknown>) => {
        const response = await fetch(
          server.url,
          modernRequest(
            "tools/call",
            { name: "durable_report", arguments: { report_id: "q3", settle_ms: 0 } },
            { token: seeded.apiKey as string, id: 1, capabilities: TASKS_ONLY, meta },
          ),
        );
        return (await response.json()) as { result?: { taskId?: string }; error?: { message: string } };
      };
      const first = await call({ "io.runifold/idempotencyKey": "retry-me" });
      const retried = await call({ "io.runifold/idempotencyKey": "retry-me" });
      const fresh = await call({});
      expect(first.result?.taskId).toEqual(expect.any(String));
      expect(retried.result?.taskId).toBe(first.result?.taskId);
      expect(fresh.result?.taskId).not.toBe(first.result?.taskId);
      const bad = await call({ "io.runifold/idempotencyKey": 7 });
      expect(bad.error?.message).toMatch(/idempotencyKey/);
    } finally {
      await server.close();
    }
  });
});
