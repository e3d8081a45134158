import type { InputResponse } from "@runifold/client";
import { type AdminHttp, adminHttp, seg, TOKEN_OPTION } from "../../admin-http";
import { CliError, intOption, positionals, UsageError } from "../../args";
import { CLIENT_OPTIONS, connectClient } from "../../connect";
import { EXIT, exitCodeOfTask } from "../../exit-codes";
import { INPUT_OPTION, inputHandler, parseInputs, toInputResponse } from "../../input";
import { print, printJson } from "../../output";
import { printTask, progressPrinter, reportOutcome, statusLine } from "../../render";
import { historyVerb } from "../admin/task-history";
import { listVerb } from "../admin/task-list";
import { rerunVerb } from "../admin/task-rerun";
import { type CliIo, registerCommand } from "../registry";
import { DEADLINE_OPTION } from "./call";
import { diagnoseIfPossible } from "./diagnosis";
import { signalVerb } from "./signal";

registerCommand({
  name: "tasks",
  summary: "List, follow, answer, cancel, signal, rerun and export the history of tasks",
  section: "client",
  verbs: [
    listVerb,
    {
      name: "get",
      args: "<id>",
      summary:
        "Show a task and, where the store is reachable, why it is where it is (exit code: its outcome when terminal, 0 while active)",
      options: [...CLIENT_OPTIONS, TOKEN_OPTION],
      notes: ["With --token (an operator API token): the task of any tenant the token's operator sees, from the admin API."],
      async run(parsed, io) {
        const [id] = positionals(parsed, ["id"]) as [string];
        const http = adminHttp(parsed, io);
        if (http) return getOverHttp(http, id, parsed.flags.has("json"), io);
        const task = await (await connectClient(parsed, io)).getTask(id, io.signal);
        const diagnosis = await diagnoseIfPossible(parsed, io, id);
        if (parsed.flags.has("json")) printJson(io, diagnosis ? { ...task, diagnosis } : task);
        else {
          printTask(io, task);
          if (diagnosis) {
            print(io.stdout, `diagnosis: ${diagnosis.headline}`);
            for (const note of diagnosis.notes) print(io.stdout, `  - ${note}`);
          }
        }
        return exitCodeOfTask(task);
      },
    },
    {
      name: "wait",
      args: "<id>",
      summary: "Wait for a task's outcome, answering input (--input, or prompts on a terminal)",
      options: [DEADLINE_OPTION, INPUT_OPTION, ...CLIENT_OPTIONS],
      async run(parsed, io) {
        const [id] = positionals(parsed, ["id"]) as [string];
        const deadlineMs = intOption(parsed, "deadline-ms", { min: 0 });
        const onInputRequest = inputHandler(parseInputs(parsed.values.get("input") ?? []), io);
        const client = await connectClient(parsed, io);
        const outcome = await client.waitTask(id, {
          deadlineMs,
          onInputRequest,
          signal: io.signal,
          onUpdate: progressPrinter(io),
        });
        return reportOutcome(io, outcome, parsed.flags.has("json"));
      },
    },
    {
      name: "cancel",
      args: "<id>",
      summary: "Request cancellation (cooperative; a terminal task is left as it is)",
      options: [...CLIENT_OPTIONS, TOKEN_OPTION],
      notes: ["With --token (an operator API token): any task the token's operator sees, through the admin API (audited)."],
      async run(parsed, io) {
        const [id] = positionals(parsed, ["id"]) as [string];
        const http = adminHttp(parsed, io);
        if (http) {
          const { outcome } = await http.request<{ outcome: string }>("POST", `tasks/${seg(id)}/cancel`);
          if (parsed.flags.has("json")) printJson(io, { taskId: id, outcome });
          else
            print(io.stdout, outcome === "cancelled" ? `Cancellation requested for task ${id}` : `Task ${id} had already ended`);
          return EXIT.completed;
        }
        const client = await connectClient(parsed, io);
        await client.cancelTask(id, io.signal);
        const task = await client.getTask(id, io.signal);
        if (parsed.flags.has("json")) printJson(io, { taskId: id, cancelRequested: true, status: task.status, task });
        else print(io.stdout, `Cancellation requested; task ${id} is ${statusLine(task)}`);
        return EXIT.completed;
      },
    },
    {
      name: "answer",
      args: "<id>",
      summary: "Answer a task's input requests by key",
      options: [{ ...INPUT_OPTION, required: true }, ...CLIENT_OPTIONS],
      notes: [`Example: runifold tasks answer <id> --input decision='{"decision":"approve","comment":"ok"}'`],
      async run(parsed, io) {
        const [id] = positionals(parsed, ["id"]) as [string];
        const inputs = parseInputs(parsed.values.get("input") ?? []);
        const client = await connectClient(parsed, io);
        const task = await client.getTask(id, io.signal);
        if (task.status !== "input_required") throw new CliError(`Task ${id} is ${task.status}; it is not waiting for input`);
        const pending = task.inputRequests ?? {};
        const unknown = [...inputs.keys()].filter((key) => !(key in pending));
        if (unknown.length > 0) {
          throw new UsageError(
            `Task ${id} is not asking for ${unknown.join(", ")} (pending: ${Object.keys(pending).join(", ") || "none"})`,
          );
        }
        const responses: Record<string, InputResponse> = {};
        for (const [key, value] of inputs) responses[key] = toInputResponse(key, value, pending[key]);
        await client.updateTask(id, responses, io.signal);
        const answered = Object.keys(responses);
        if (parsed.flags.has("json")) printJson(io, { taskId: id, answered });
        else print(io.stdout, `Answered ${answered.join(", ")} for task ${id}`);
        return EXIT.completed;
      },
    },
    {
      name: "listen",
      args: "<id...>",
      summary: "Print each task's state, then every change, until all are terminal",
      options: CLIENT_OPTIONS,
      notes: ["With --json: one JSON task snapshot per line."],
      async run(parsed, io) {
        const ids = positionals(parsed, ["id"], "id");
        const client = await connectClient(parsed, io);
        for await (const task of client.listenTasks(ids, { signal: io.signal })) {
          if (parsed.flags.has("json")) printJson(io, task);
          else print(io.stdout, `${new Date().toISOString()} ${task.taskId} ${statusLine(task)}`);
        }
        return io.signal.aborted ? EXIT.interrupted : EXIT.completed;
      },
    },
    signalVerb,
    rerunVerb,
    historyVerb,
  ],
});

/** `tasks get` in HTTP mode: GET /api/v1/admin/tasks/{id}; the exit code is the outcome's, as over MCP. */
async function getOverHttp(http: AdminHttp, id: string, json: boolean, io: CliIo): Promise<number> {
  const task = await http.request<{
    taskId: string;
    tenant: string;
    workflow: string;
    status: string;
    statusMessage: string | null;
    outcome: { result?: { isError?: boolean } } | null;
  }>("GET", `tasks/${seg(id)}`);
  if (json) printJson(io, task);
  else {
    print(io.stdout, `task ${task.taskId} (${task.tenant}, ${task.workflow}): ${task.status}`);
    if (task.statusMessage) print(io.stdout, task.statusMessage);
  }
  if (task.status === "completed") return task.outcome?.result?.isError ? EXIT.toolError : EXIT.completed;
  if (task.status === "failed") return EXIT.failed;
  if (task.status === "cancelled") return EXIT.cancelled;
  return EXIT.completed;
}
