import { type RunHistory, readRunHistory } from "@runifold/sdk";
import { adminHttp, HTTP_MODE_OPTIONS, seg } from "../../admin-http";
import { CliError, option, positionals } from "../../args";
import { clientKey } from "../../connect";
import { withDatabase } from "../../db";
import { EXIT } from "../../exit-codes";
import { print, printJson, printTable } from "../../output";
import type { Verb } from "../registry";
import { taskScope } from "./task-scope";

const PREVIEW_CHARS = 60;

/**
 * `tasks history <id> [--tenant <slug>] [--json]`: a store command inside the `tasks` group (it reads
 * the database, like `tasks rerun`): the run's durable operations in order — key, kind, position,
 * value — as `@runifold/sdk/testing` `replayHistory` reads them, so a team's CI can replay real runs
 * against changed code. Scoped like the other `tasks` verbs: with an API key (`--key` or
 * RUNIFOLD_KEY) to the key's tenant, as `tasks get` is; with `--tenant` to that tenant; an operator
 * with neither reads any tenant's run, as `tasks rerun` does. Another tenant's task is "not found".
 */
export const historyVerb: Verb = {
  name: "history",
  args: "<id>",
  summary:
    "Export a task's history: its steps, timers, signals, answers and recorded values in order (store command: DATABASE_URL; or HTTP mode)",
  options: [
    { name: "tenant", value: "slug", description: "Only look for the task in this tenant" },
    { name: "key", value: "KEY", description: "Only look in this API key's tenant (default: $RUNIFOLD_KEY)" },
    { name: "json", description: "The whole history as one JSON document (what replayHistory reads)" },
    ...HTTP_MODE_OPTIONS,
  ],
  notes: [
    "Values are the workflow's own data (step outputs, answers): treat an export like the run itself.",
    "Example: runifold tasks history <id> --json > histories/refund-1.json",
  ],
  async run(parsed, io) {
    const [id] = positionals(parsed, ["id"]) as [string];
    const slug = option(parsed, "tenant");
    const key = clientKey(parsed, io);
    const http = adminHttp(parsed, io);
    const history = http
      ? await http.request<RunHistory>("GET", `tasks/${seg(id)}/history`)
      : await withDatabase(io, async (sql) => {
          const tenantIds = await taskScope(sql, { key, slug });
          return tenantIds?.length === 0 ? undefined : readRunHistory(sql, { runId: id, tenantIds });
        });
    if (!history) throw new CliError(`No task ${id}${slug ? ` in tenant ${slug}` : ""}`);
    if (parsed.flags.has("json")) {
      printJson(io, history);
      return EXIT.completed;
    }
    print(io.stdout, `Task ${id}: ${history.workflow.name}@${history.workflow.version}, ${history.status}`);
    printTable(
      io,
      ["SEQ", "KIND", "KEY", "VALUE"],
      history.operations.map((operation) => [
        operation.seq === null ? "-" : String(operation.seq),
        operation.preflight ? `${operation.kind} (preflight)` : operation.kind,
        operation.key,
        preview(operation.value),
      ]),
    );
    return EXIT.completed;
  },
};

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? "null";
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 1)}…` : text;
}
