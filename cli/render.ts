import type { CallToolResult, InputRequest, TaskOutcome, TaskView } from "@runifold/client";
import type { CliIo } from "./commands/registry";
import { exitCodeOfOutcome } from "./exit-codes";
import { print, printJson } from "./output";

/** A tool result for people: text blocks as text, other blocks (and bare structured content) as JSON. */
export function printResult(io: CliIo, result: CallToolResult): void {
  for (const block of result.content)
    print(io.stdout, block.type === "text" && typeof block.text === "string" ? block.text : JSON.stringify(block));
  if (result.content.length === 0 && result.structuredContent)
    print(io.stdout, JSON.stringify(result.structuredContent, null, 2));
}

function messageOf(request: InputRequest): string {
  const message = (request.params as { message?: unknown } | undefined)?.message;
  return typeof message === "string" ? message : request.method;
}

export function statusLine(task: TaskView): string {
  return `${task.status}${task.statusMessage ? ` — ${task.statusMessage}` : ""}`;
}

/** `tasks get` for people. */
export function printTask(io: CliIo, task: TaskView): void {
  const rows: [string, string][] = [
    ["task", task.taskId],
    ["status", statusLine(task)],
    ["created", task.createdAt],
    ["updated", task.lastUpdatedAt],
    ["ttl", task.ttlMs === null ? "unlimited" : `${task.ttlMs} ms`],
  ];
  if (task.pollIntervalMs !== undefined) rows.push(["poll", `${task.pollIntervalMs} ms`]);
  if (task.error) rows.push(["error", `${task.error.message} (code ${task.error.code})`]);
  if (task.result?.isError) rows.push(["isError", "true (the tool reported an application error)"]);
  for (const row of rows) print(io.stdout, `${row[0].padEnd(8)} ${row[1]}`);
  for (const [key, request] of Object.entries(task.inputRequests ?? {}))
    print(io.stdout, `input    ${key}: ${messageOf(request)}`);
  if (task.result) {
    print(io.stdout, "result:");
    printResult(io, task.result);
  }
}

/** One line per observed change, for terminals (stderr). */
export function progressPrinter(io: CliIo): ((task: TaskView) => void) | undefined {
  if (!io.stderr.isTTY) return undefined;
  return (task) => {
    const time = new Date().toISOString().slice(11, 19);
    io.stderr.write(`[${time}] ${task.taskId.slice(0, 8)} ${statusLine(task)}\n`);
  };
}

export function outcomeJson(outcome: TaskOutcome): Record<string, unknown> {
  const base = { outcome: outcome.kind, taskId: outcome.task.taskId, status: outcome.task.status };
  switch (outcome.kind) {
    case "completed":
      return { ...base, isError: outcome.isError, result: outcome.result, task: outcome.task };
    case "failed":
      return { ...base, error: outcome.error, task: outcome.task };
    case "input_required":
      return { ...base, inputRequests: outcome.inputRequests, task: outcome.task };
    default:
      return { ...base, task: outcome.task };
  }
}

/** Prints a wait's outcome (result on stdout, status on stderr) and returns the exit code. */
export function reportOutcome(io: CliIo, outcome: TaskOutcome, json: boolean): number {
  if (json) {
    printJson(io, outcomeJson(outcome));
    return exitCodeOfOutcome(outcome);
  }
  const id = outcome.task.taskId;
  const resume = `resume with: runifold tasks wait ${id}`;
  switch (outcome.kind) {
    case "completed":
      printResult(io, outcome.result);
      if (outcome.isError) io.stderr.write(`task ${id} completed with an application error (isError)\n`);
      break;
    case "failed":
      io.stderr.write(`task ${id} failed: ${outcome.error.message} (code ${outcome.error.code})\n`);
      break;
    case "cancelled":
      io.stderr.write(`task ${id} was cancelled\n`);
      break;
    case "input_required": {
      io.stderr.write(`task ${id} is waiting for input:\n`);
      for (const [key, request] of Object.entries(outcome.inputRequests)) io.stderr.write(`  ${key}: ${messageOf(request)}\n`);
      const key = Object.keys(outcome.inputRequests)[0] ?? "KEY";
      io.stderr.write(
        `answer with: runifold tasks answer ${id} --input ${key}='{...}'  (or: runifold tasks wait ${id} --input ...)\n`,
      );
      break;
    }
    case "timeout":
      io.stderr.write(`deadline reached; task ${id} is still ${outcome.task.status} (${resume})\n`);
      break;
    case "aborted":
      io.stderr.write(`stopped waiting; task ${id} is still ${outcome.task.status} (${resume})\n`);
      break;
  }
  return exitCodeOfOutcome(outcome);
}

export function printInputRequests(io: CliIo, requests: Record<string, InputRequest>): void {
  for (const [key, request] of Object.entries(requests)) io.stderr.write(`  ${key}: ${messageOf(request)}\n`);
}
