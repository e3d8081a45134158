/**
 * The companion tools of a task handle (DESIGN §8, docs/clients.md "Task handles"): what a client
 * that negotiated no tasks calls to follow, answer, cancel and find the work its tool calls started.
 * Listed after the tenant's own tools to such clients, unless the tenant turned handles off.
 */
export const COMPANION = {
  status: "runifold_task_status",
  wait: "runifold_task_wait",
  answer: "runifold_task_answer",
  cancel: "runifold_task_cancel",
  list: "runifold_task_list",
} as const;

export type CompanionName = (typeof COMPANION)[keyof typeof COMPANION];

const NAMES = new Set<string>(Object.values(COMPANION));

export function isCompanionTool(name: unknown): name is CompanionName {
  return typeof name === "string" && NAMES.has(name);
}

/** The longest a runifold_task_wait call blocks: under the 60 s request timeout most clients default to. */
export const MAX_WAIT_SECONDS = 55;
export const DEFAULT_WAIT_SECONDS = 30;

const TASK_ID = { type: "string", description: "The taskId of a handle (structuredContent.taskId)" } as const;

/** tools/list entries, the same in both eras (none runs as a task: `execution` is left out, i.e. forbidden). */
export function companionToolDescriptors() {
  return [
    {
      name: COMPANION.status,
      title: "Task status",
      description:
        "Reads a task started by one of this server's tools: its status, what it waits for (a question to answer, a timer, a signal) and when to look again.",
      inputSchema: { type: "object", properties: { taskId: TASK_ID }, required: ["taskId"], additionalProperties: false },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: COMPANION.wait,
      title: "Wait for a task",
      description: `Waits up to timeoutSeconds (1-${MAX_WAIT_SECONDS}, default ${DEFAULT_WAIT_SECONDS}) for a task to finish. Returns the tool's own result when it finishes in time; otherwise the task's handle again (call again, or answer what it waits for).`,
      inputSchema: {
        type: "object",
        properties: {
          taskId: TASK_ID,
          timeoutSeconds: { type: "integer", minimum: 1, maximum: MAX_WAIT_SECONDS, default: DEFAULT_WAIT_SECONDS },
        },
        required: ["taskId"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: COMPANION.answer,
      title: "Answer a task's question",
      description:
        "Answers a question a task waits for (structuredContent.waitingFor of its handle). response is {action: 'accept', content: {...}} with content matching the question's requestedSchema, or {action: 'decline'} / {action: 'cancel'}.",
      inputSchema: {
        type: "object",
        properties: {
          taskId: TASK_ID,
          key: { type: "string", description: "The question's key (waitingFor.questions[].key)" },
          response: {
            type: "object",
            properties: {
              action: { type: "string", enum: ["accept", "decline", "cancel"] },
              content: { type: "object", description: "The answer's fields, matching the question's requestedSchema" },
            },
            required: ["action"],
          },
        },
        required: ["taskId", "key", "response"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    {
      name: COMPANION.cancel,
      title: "Cancel a task",
      description: "Cancels a task that has not finished (cooperatively: the run stops at its next step).",
      inputSchema: { type: "object", properties: { taskId: TASK_ID }, required: ["taskId"], additionalProperties: false },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    {
      name: COMPANION.list,
      title: "List my tasks",
      description:
        "Lists the tasks this credential started, newest first, 20 a page (pass nextCursor back as cursor for the next page).",
      inputSchema: {
        type: "object",
        properties: { cursor: { type: "string", description: "nextCursor of the previous page" } },
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
  ];
}
