import { type RerunResult, rerunTask } from "../../../lib/admin";
import { adminHttp, HTTP_MODE_OPTIONS, seg } from "../../admin-http";
import { option, positionals, UsageError } from "../../args";
import { withAdmin } from "../../db";
import { EXIT } from "../../exit-codes";
import { print, printJson } from "../../output";
import type { Verb } from "../registry";
import { taskScope } from "./task-scope";

/**
 * `tasks rerun <id> [--tenant <slug>]`: a store command inside the `tasks` group (it needs the
 * database, like `tenants` or `audit`, not the MCP endpoint): the finished task starts again with the
 * same input as a new task, linked both ways and audited as `cli:<user>@<host>` — lib/admin
 * rerunTask, the console's own rule. `--tenant` narrows the lookup to one tenant.
 */
export const rerunVerb: Verb = {
  name: "rerun",
  args: "<id>",
  summary: "Rerun a finished task with the same input (store command: DATABASE_URL; or HTTP mode); prints the new task ID",
  options: [
    { name: "tenant", value: "slug", description: "Only look for the task in this tenant" },
    { name: "json", description: "Machine-readable output (one JSON document)" },
    ...HTTP_MODE_OPTIONS,
  ],
  notes: [
    "A task still running is refused (exit 4); cancel it first. The new task belongs to no API key: follow it in the console.",
    "Example: NEW=$(runifold tasks rerun <id> | tail -n 1)",
  ],
  async run(parsed, io) {
    const [id] = positionals(parsed, ["id"]) as [string];
    const slug = option(parsed, "tenant");
    const http = adminHttp(parsed, io);
    if (http && slug)
      throw new UsageError("--tenant is for the database mode; in HTTP mode the token's operator's tenants are searched");
    const result = http
      ? await http.request<RerunResult>("POST", `tasks/${seg(id)}/rerun`)
      : await withAdmin(io, async (ctx) => rerunTask(ctx, { taskId: id, scope: await taskScope(ctx.sql, { slug }) }));
    if (parsed.flags.has("json")) printJson(io, result);
    else {
      print(io.stdout, `Task ${id} rerun as:`);
      print(io.stdout, result.rerunId);
    }
    return EXIT.completed;
  },
};
