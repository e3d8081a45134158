import { createRun, defineWorkflow, STRANDED_MESSAGE_PREFIX } from "@runifold/sdk";
import { describe, expect, it } from "vitest";
import { readTaskRecord } from "../../lib/tasks";
import { everything } from "../fixtures/engine-workflows";
import { waitFor } from "../helpers/wait-for";
import { engineStore, TENANT } from "./support/harness";

/** Stranded runs are visible (review F9): the reason reaches the MCP client as the task's statusMessage. */
const store = engineStore();

describe("a run whose version no worker serves", () => {
  it("tells the client why it does not move, and the message goes once a worker serves it", async () => {
    await store.startWorker([everything], { strandedAfterMs: 100 });
    const run = await createRun(store.sql, {
      tenantId: TENANT,
      workflowName: "everything",
      workflowVersion: 2,
      input: { label: "x" },
    });
    const record = await waitFor(
      () => readTaskRecord(store.sql, { tenantId: TENANT, taskId: run.id }),
      (task) => Boolean(task?.statusMessage),
      { describe: "the task's statusMessage to name the missing worker", timeoutMs: 30_000 },
    );
    expect(record?.statusMessage).toBe(`${STRANDED_MESSAGE_PREFIX} everything@2; the run continues when one does`);
    expect(record?.status).toBe("queued");
    await store.startWorker([defineWorkflow({ ...everything, version: 2 })]);
    await waitFor(
      () => readTaskRecord(store.sql, { tenantId: TENANT, taskId: run.id }),
      (task) => task?.status !== "queued" && task?.statusMessage === null,
      { describe: "the claim by a worker serving everything@2 to clear the message" },
    );
  });
});
