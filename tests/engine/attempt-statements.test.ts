import { createRegistry, createWorker, defineWorkflow, silentLogger } from "@runifold/sdk";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { waitFor } from "../helpers/wait-for";
import { engineStore } from "./support/harness";

/**
 * The statements a one-step run costs the worker's main pool. Claims go over the lease pool and are
 * not counted here; what is counted is every statement that names the run (its id among the
 * parameters, alone or in an array). The history usage an attempt checks against the limits comes
 * back with the claim (ops/read-history-usage.ts historyUsageColumns): reading it on its own was one
 * more transaction per run, about a third of a one-step run's cost in the bench.
 */
const store = engineStore();
const seen: { query: string; runIds: string[] }[] = [];
let counted: postgres.Sql | undefined;
let lease: postgres.Sql | undefined;
afterAll(async () => {
  await Promise.all([counted?.end(), lease?.end()]);
});

const oneStep = defineWorkflow({
  name: "attempt-statements-one-step",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    await ctx.step("only", () => 1);
    return { content: [] };
  },
});

const flatIds = (parameters: unknown[]): string[] =>
  parameters.flatMap((p) => (Array.isArray(p) ? p : [p])).filter((p): p is string => typeof p === "string");

describe("a one-step run's statements on the worker's main pool", () => {
  it("are its step's checkpoint, its finish and the finish's notification, with no read of its history", async () => {
    counted = postgres(store.url, {
      max: 4,
      onnotice: () => {},
      debug: (_connection, query, parameters) => seen.push({ query, runIds: flatIds(parameters as unknown[]) }),
    });
    lease = postgres(store.url, { max: 2, onnotice: () => {} });
    const worker = createWorker({
      sql: counted,
      leaseSql: lease,
      registry: createRegistry([oneStep]),
      logger: silentLogger,
      leaseMs: 5_000,
      pollMs: 50,
    });
    await worker.start();
    try {
      const run = await store.create(oneStep, {});
      await waitFor(
        () => store.run(run.id),
        (row) => row?.status === "completed",
        { describe: `run ${run.id} to complete`, timeoutMs: 10_000 },
      );
      const forRun = seen.filter((statement) => statement.runIds.includes(run.id));
      expect(forRun.filter((statement) => statement.query.includes("continued_as_new"))).toEqual([]);
      // The step's checkpoint, the run's terminal write and its wake-up NOTIFY after the commit; each
      // may be batched with other runs'. A read of the history usage per attempt made it four.
      expect(forRun.length, forRun.map((statement) => statement.query.slice(0, 80)).join("\n")).toBeLessThanOrEqual(3);
    } finally {
      await worker.stop(500);
    }
  });
});
