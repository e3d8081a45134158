import { describe, expect, it } from "vitest";
import { webhookPayload } from "../webhooks/delivery-workflow";

describe("approval webhook payloads", () => {
  it("carry the approval beside the task, and link the task page", () => {
    const payload = webhookPayload(
      {
        id: "d1",
        event: "task.approval_decided",
        task_id: "t1",
        tenant_slug: "acme",
        created_at: "2026-12-03T08:00:00.000Z",
        task: {
          status: "working",
          workflow: "deploy@1",
          approval: {
            key: "ship",
            outcome: null,
            decision: { email: "b@acme.test", decision: "approve", channel: "http", comment: null },
          },
        },
      } as unknown as Parameters<typeof webhookPayload>[0],
      "https://console.example.test",
    );
    expect(payload).toMatchObject({
      type: "task.approval_decided",
      task: {
        taskId: "t1",
        status: "working",
        approval: { key: "ship", decision: { email: "b@acme.test", decision: "approve" } },
        link: "https://console.example.test/tasks/t1",
      },
    });
  });
});
