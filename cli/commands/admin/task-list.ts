import { RUN_STATUSES } from "@runifold/sdk";
import { listTaskPage } from "../../../lib/tasks";
import { adminHttp, HTTP_MODE_OPTIONS } from "../../admin-http";
import { intOption, option, positionals, UsageError } from "../../args";
import { requireTenant, withDatabase } from "../../db";
import { EXIT } from "../../exit-codes";
import { isoOrDash, printJson, printTable } from "../../output";
import type { Verb } from "../registry";

type ListedTask = {
  taskId: string;
  tenant: string;
  tool: string | null;
  workflow: string;
  status: string;
  statusMessage: string | null;
  createdAt: string | Date;
  finishedAt: string | Date | null;
};

/**
 * `tasks list [--tenant <slug>] [--status a,b] [--limit N] [--cursor C]`: tasks newest first, one page.
 * HTTP mode (--url and --token): the tenants the token's operator sees, through GET /api/v1/admin/tasks;
 * else the database (every tenant, as an operator on the server host sees them).
 */
export const listVerb: Verb = {
  name: "list",
  args: "",
  summary: "List tasks, newest first, one page (HTTP mode: of the tenants the token's operator sees)",
  options: [
    { name: "tenant", value: "slug", description: "Only this tenant's tasks" },
    { name: "status", value: "list", description: `Only these run statuses (comma-separated: ${RUN_STATUSES.join(", ")})` },
    { name: "limit", value: "N", description: "Page size, 1 to 200 (default 50)" },
    { name: "cursor", value: "C", description: "The next page: the cursor a previous page printed" },
    { name: "json", description: "Machine-readable output: { tasks, nextCursor }" },
    ...HTTP_MODE_OPTIONS,
  ],
  async run(parsed, io) {
    positionals(parsed, []);
    const limit = intOption(parsed, "limit", { min: 1, max: 200 }) ?? 50;
    const slug = option(parsed, "tenant");
    const status = option(parsed, "status");
    const cursor = option(parsed, "cursor");
    const http = adminHttp(parsed, io);
    let page: { tasks: ListedTask[]; nextCursor: string | null };
    if (http) {
      const query = Object.entries({ tenant: slug, status, cursor, limit: String(limit) }).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      );
      page = await http.request("GET", `tasks?${new URLSearchParams(query)}`);
    } else {
      if (cursor)
        throw new UsageError("--cursor pages the HTTP mode's list; on the server host, narrow with --tenant and --status");
      const statuses = status?.split(",").map((s) => s.trim());
      const unknown = statuses?.filter((s) => !(RUN_STATUSES as readonly string[]).includes(s)) ?? [];
      if (unknown.length > 0) throw new UsageError(`--status takes ${RUN_STATUSES.join(", ")} (got ${unknown.join(", ")})`);
      const rows = await withDatabase(io, async (sql) =>
        listTaskPage(sql, {
          scope: null,
          tenantId: slug ? (await requireTenant(sql, slug)).id : undefined,
          statuses: statuses as (typeof RUN_STATUSES)[number][] | undefined,
          limit,
        }),
      );
      page = {
        tasks: rows.map((row) => ({
          taskId: row.id,
          tenant: row.tenant_slug,
          tool: row.tool_name,
          workflow: row.workflow_key,
          status: row.status,
          statusMessage: row.status_message,
          createdAt: row.created_at,
          finishedAt: row.finished_at,
        })),
        nextCursor: null,
      };
    }
    if (parsed.flags.has("json")) printJson(io, page);
    else {
      printTable(
        io,
        ["TASK", "TENANT", "TOOL", "WORKFLOW", "STATUS", "CREATED", "FINISHED"],
        page.tasks.map((t) => [
          t.taskId,
          t.tenant,
          t.tool ?? "-",
          t.workflow,
          t.status,
          isoOrDash(t.createdAt),
          isoOrDash(t.finishedAt),
        ]),
      );
      if (page.nextCursor) io.stdout.write(`next page: --cursor ${page.nextCursor}\n`);
    }
    return EXIT.completed;
  },
};
