import { seg } from "./admin-api";
import { CliError, table } from "./args";
import { ADMIN, positional, type Row, text, type Verb } from "./verb";

/** `tasks list|get|cancel|history` and `approvals list|decide` over the server's HTTP APIs. */
export const TASK_VERBS: Record<string, Verb> = {
  "tasks list": {
    usage: "tasks list [--tenant <slug>] [--status LIST] [--limit N] [--cursor C] [--json]",
    summary: "Tasks of the tenants the token's operator sees, newest first, one page",
    options: ["tenant", "status", "limit", "cursor"],
    async run(api, parsed, output) {
      const query = new URLSearchParams(
        Object.entries({
          tenant: parsed.values.get("tenant"),
          status: parsed.values.get("status"),
          limit: parsed.values.get("limit") ?? "50",
          cursor: parsed.values.get("cursor"),
        }).filter((entry): entry is [string, string] => entry[1] !== undefined),
      );
      const page = await api.request<{ tasks: Row[]; nextCursor: string | null }>("GET", `${ADMIN}tasks?${query}`);
      if (parsed.flags.has("json")) output.json(page);
      else {
        output.out(
          table(
            ["TASK", "TENANT", "TOOL", "WORKFLOW", "STATUS", "CREATED"],
            page.tasks.map((t) => [
              text(t.taskId),
              text(t.tenant),
              text(t.tool),
              text(t.workflow),
              text(t.status),
              text(t.createdAt),
            ]),
          ),
        );
        if (page.nextCursor) output.out(`next page: --cursor ${page.nextCursor}`);
      }
      return 0;
    },
  },
  "tasks get": {
    usage: "tasks get <id> [--json]",
    summary: "Show a task (exit code: its outcome when terminal, 0 while active)",
    options: [],
    async run(api, parsed, output) {
      const task = await api.request<Row & { outcome: { result?: { isError?: boolean } } | null }>(
        "GET",
        `${ADMIN}tasks/${seg(positional(parsed, "id"))}`,
      );
      if (parsed.flags.has("json")) output.json(task);
      else output.out(`task ${task.taskId} (${task.tenant}, ${task.workflow}): ${task.status}`);
      if (task.status === "completed") return task.outcome?.result?.isError ? 1 : 0;
      return task.status === "failed" ? 2 : task.status === "cancelled" ? 3 : 0;
    },
  },
  "tasks cancel": {
    usage: "tasks cancel <id> [--json]",
    summary: "Request cancellation (cooperative; a terminal task is left as it is)",
    options: [],
    async run(api, parsed, output) {
      const id = positional(parsed, "id");
      const { outcome } = await api.request<{ outcome: string }>("POST", `${ADMIN}tasks/${seg(id)}/cancel`);
      if (parsed.flags.has("json")) output.json({ taskId: id, outcome });
      else output.out(outcome === "cancelled" ? `Cancellation requested for task ${id}` : `Task ${id} had already ended`);
      return 0;
    },
  },
  "tasks rerun": {
    usage: "tasks rerun <id> [--json]",
    summary: "Rerun a finished task with the same input; prints the new task ID",
    options: [],
    async run(api, parsed, output) {
      const id = positional(parsed, "id");
      const result = await api.request<{ rerunId: string }>("POST", `${ADMIN}tasks/${seg(id)}/rerun`);
      if (parsed.flags.has("json")) output.json(result);
      else output.out(`Task ${id} rerun as:\n${result.rerunId}`);
      return 0;
    },
  },
  "tasks history": {
    usage: "tasks history <id> --json",
    summary: "Export a task's history as one JSON document (what replayHistory reads)",
    options: [],
    async run(api, parsed, output) {
      output.json(await api.request("GET", `${ADMIN}tasks/${seg(positional(parsed, "id"))}/history`));
      return 0;
    },
  },
  "approvals list": {
    usage: "approvals list [--all] [--json]",
    summary: "The open approvals you may decide, in every tenant you see (--all: every open one)",
    options: [],
    flags: ["all"],
    async run(api, parsed, output) {
      const { approvals } = await api.request<{ approvals: Row[] }>(
        "GET",
        `/api/v1/approvals${parsed.flags.has("all") ? "?all=true" : ""}`,
      );
      if (parsed.flags.has("json")) output.json({ approvals });
      else
        output.out(
          table(
            ["TENANT", "TASK", "KEY", "YOU", "MESSAGE"],
            approvals.map((a) => [
              text(a.tenant),
              text(a.taskId),
              text(a.key),
              a.canDecide ? "may decide" : "-",
              text(a.message),
            ]),
          ),
        );
      return 0;
    },
  },
  "approvals decide": {
    usage: "approvals decide <taskId> <key> <approve|reject> [--comment TEXT] [--json]",
    summary: "Approve or reject an approval as the token's operator (channel cli)",
    options: ["comment"],
    async run(api, parsed, output) {
      const [taskId, key, decision] = parsed.positionals;
      if (!taskId || !key || (decision !== "approve" && decision !== "reject"))
        throw new CliError("Usage: runifold approvals decide <taskId> <key> approve|reject");
      const body = await api.request<{ outcome: string | null; decisions: unknown[] }>(
        "POST",
        `/api/v1/approvals/${seg(taskId)}/${seg(key)}/decisions`,
        { decision, comment: parsed.values.get("comment") },
        { "x-runifold-channel": "cli" },
      );
      if (parsed.flags.has("json")) output.json(body);
      else output.out(`Recorded: ${decision} (${body.decisions.length} decision(s); ${body.outcome ?? "still open"})`);
      return 0;
    },
  },
};
