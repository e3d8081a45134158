import { createRun, defineWorkflow, InvalidWorkflowInput } from "@runifold/sdk";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { engineStore, TENANT } from "./support/harness";

/**
 * A run's input is validated at creation and stored as the caller sent it; every attempt parses
 * that stored input once, so the workflow sees the schema's output exactly once removed from what
 * was sent — a transform is applied once, a non-JSON default works, and a run created by the web
 * tier (which has no zod schema) behaves as one created with the definition (review 3, E5).
 */
const store = engineStore();

const shout = defineWorkflow({
  name: "shout",
  version: 1,
  input: z.object({ name: z.string().transform((name) => `${name}!`) }),
  async run(ctx, input) {
    const first = await ctx.step("first-look", () => input.name);
    // A second attempt parses the stored input again: it must see what the first saw.
    await ctx.sleep("between", 1);
    return { content: [{ type: "text", text: input.name }], structuredContent: { first, second: input.name } };
  },
});

const dated = defineWorkflow({
  name: "dated-input",
  version: 1,
  input: z.object({ at: z.date().default(() => new Date("2030-01-01T00:00:00.000Z")), n: z.number().default(7) }),
  async run(_ctx, input) {
    return { content: [], structuredContent: { isDate: input.at instanceof Date, at: input.at.toISOString(), n: input.n } };
  },
});

describe("the input is parsed once per attempt, from what the caller sent (E5)", () => {
  it("applies a transform once, on every attempt, and stores the caller's input", async () => {
    await store.startWorker([shout]);
    const run = await store.create(shout, { name: "ada" });
    const done = await store.waitForStatus(run.id, ["completed", "failed"]);
    expect(done).toMatchObject({ status: "completed", attempt: 2 });
    expect((await store.terminalPayload(run.id))?.payload).toMatchObject({
      result: { structuredContent: { first: "ada!", second: "ada!" } },
    });
    const [row] = await store.sql`SELECT input FROM runs WHERE id = ${run.id}`;
    expect(row?.input).toEqual({ name: "ada" });
  });

  it("runs a schema whose default is not JSON (a Date) instead of failing the run", async () => {
    await store.startWorker([dated]);
    const run = await store.create(dated, {});
    const done = await store.waitForStatus(run.id, ["completed", "failed"]);
    expect(done.status).toBe("completed");
    expect((await store.terminalPayload(run.id))?.payload).toMatchObject({
      result: { structuredContent: { isDate: true, at: "2030-01-01T00:00:00.000Z", n: 7 } },
    });
  });

  it("gives a run created without the definition (the web tier) the same input", async () => {
    await store.startWorker([shout]);
    const run = await createRun(store.sql, {
      tenantId: TENANT,
      workflowName: "shout",
      workflowVersion: 1,
      input: { name: "ada" },
    });
    await store.waitForStatus(run.id, "completed");
    expect((await store.terminalPayload(run.id))?.payload).toMatchObject({
      result: { structuredContent: { first: "ada!", second: "ada!" } },
    });
  });

  it("fails a stored input the schema refuses with the schema's issues in the cause", async () => {
    await store.startWorker([shout]);
    const run = await createRun(store.sql, { tenantId: TENANT, workflowName: "shout", workflowVersion: 1, input: { name: 42 } });
    const done = await store.waitForStatus(run.id, ["completed", "failed"]);
    expect(done).toMatchObject({ status: "failed", failure: { code: "invalid_input" } });
    expect(String(done.failure?.message)).toMatch(/^Invalid input for shout@1: name: /);
  });

  it("refuses at creation an input whose stored form the schema would refuse (a Date for z.date())", async () => {
    const attempt = store.create(dated, { at: new Date() });
    await expect(attempt).rejects.toBeInstanceOf(InvalidWorkflowInput);
    await expect(attempt).rejects.toThrow(/^Invalid input for dated-input@1: at: /);
  });
});
