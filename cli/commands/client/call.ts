import { intOption, option, parseJsonOption, positionals, UsageError } from "../../args";
import { CLIENT_OPTIONS, connectClient } from "../../connect";
import { EXIT } from "../../exit-codes";
import { INPUT_OPTION, inputHandler, parseInputs } from "../../input";
import { print, printJson } from "../../output";
import { printInputRequests, printResult, progressPrinter, reportOutcome } from "../../render";
import { registerCommand } from "../registry";

export const DEADLINE_OPTION = {
  name: "deadline-ms",
  value: "N",
  description: "Stop waiting after N ms (exit 5; the task keeps running)",
};

registerCommand({
  name: "call",
  summary: "Call an MCP tool",
  section: "client",
  verbs: [
    {
      name: "",
      args: "<tool>",
      summary: "Call a tool; waits for a task's outcome unless --detach",
      options: [
        { name: "args", value: "JSON", description: "Tool arguments as a JSON object (default {})" },
        { name: "detach", description: "Do not wait: print the task ID (a result that is already complete is printed)" },
        DEADLINE_OPTION,
        INPUT_OPTION,
        ...CLIENT_OPTIONS,
      ],
      notes: [
        `Example: runifold call approve_expense --args '{"expense_id":"E-7","amount":42}' --input decision='{"decision":"approve"}'`,
        "Input requests without an --input answer are asked on a terminal, otherwise the call exits 5 with the task ID.",
      ],
      async run(parsed, io) {
        const [tool] = positionals(parsed, ["tool"]) as [string];
        const rawArgs = option(parsed, "args");
        const args = rawArgs === undefined ? {} : parseJsonOption(rawArgs, "--args");
        if (typeof args !== "object" || args === null || Array.isArray(args))
          throw new UsageError("--args must be a JSON object");
        const deadlineMs = intOption(parsed, "deadline-ms", { min: 0 });
        const json = parsed.flags.has("json");
        const onInputRequest = inputHandler(parseInputs(parsed.values.get("input") ?? []), io);
        const client = await connectClient(parsed, io);
        const outcome = await client.callToolOutcome(tool, args as Record<string, unknown>, {
          onInputRequest,
          signal: io.signal,
        });
        if (outcome.kind === "complete") {
          const isError = outcome.result.isError === true;
          if (json) printJson(io, { outcome: "completed", isError, result: outcome.result });
          else printResult(io, outcome.result);
          return isError ? EXIT.toolError : EXIT.completed;
        }
        if (outcome.kind === "input_required") {
          io.stderr.write(`${tool} needs input before it starts:\n`);
          printInputRequests(io, outcome.inputRequests);
          const key = Object.keys(outcome.inputRequests)[0] ?? "KEY";
          throw new UsageError(`answer with --input ${key}=JSON`);
        }
        const task = outcome.task;
        if (parsed.flags.has("detach")) {
          if (json) printJson(io, { taskId: task.taskId, status: task.status, task });
          else print(io.stdout, task.taskId);
          return EXIT.completed;
        }
        if (io.stderr.isTTY) io.stderr.write(`task ${task.taskId} created (Ctrl-C stops waiting, the task keeps running)\n`);
        const waited = await client.waitTask(task, {
          deadlineMs,
          onInputRequest,
          signal: io.signal,
          onUpdate: progressPrinter(io),
        });
        return reportOutcome(io, waited, json);
      },
    },
  ],
});
