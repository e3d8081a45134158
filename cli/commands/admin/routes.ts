import {
  disableRoute,
  insertRouteRevision,
  listRouteRevisions,
  type RouteRow,
  type TaskSupport,
} from "../../../db/queries/routes";
import { toolInputSchema } from "../../../lib/admin";
import { shippedWorkflows } from "../../../workflows/demo";
import { CliError, intOption, option, positionals, requiredOption, UsageError } from "../../args";
import { requireTenant, withDatabase } from "../../db";
import { EXIT } from "../../exit-codes";
import { isoOrDash, print, printJson, printTable } from "../../output";
import { registerCommand } from "../registry";

const TASK_SUPPORT: readonly TaskSupport[] = ["optional", "required", "forbidden"];
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const JSON_FLAG = { name: "json", description: "Machine-readable output (one JSON document)" };

function describeRoute(route: RouteRow): string {
  const state = route.disabled_at ? "disabled" : `task support ${route.task_support}`;
  return `${route.tool_name} → ${route.workflow_name}@${route.workflow_version} (revision ${route.revision}, ${state})`;
}

registerCommand({
  name: "routes",
  summary: "Bind MCP tool names to workflows (immutable revisions)",
  verbs: [
    {
      name: "add",
      args: "",
      summary: "Add a tool, or a new revision of an existing one",
      options: [
        { name: "tenant", value: "slug", description: "The tenant's slug", required: true },
        { name: "tool", value: "name", description: "MCP tool name (letters, digits, _ . -)", required: true },
        { name: "workflow", value: "name", description: "Workflow name", required: true },
        { name: "version", value: "n", description: "Exact workflow version", required: true },
        { name: "task-support", value: "mode", description: "optional | required | forbidden (default: optional)" },
        { name: "title", value: "T", description: "Tool title (default: the workflow's)" },
        { name: "description", value: "D", description: "Tool description (default: the workflow's)" },
        {
          name: "sync-deadline-ms",
          value: "N",
          description: "How long a call without a task waits for the result (default 30000)",
        },
        { name: "max-ttl-ms", value: "N", description: "Cap on a task handle's lifetime for this tool (default: the tenant's)" },
        JSON_FLAG,
      ],
      notes: [
        'The input schema comes from the shipped workflow; a workflow this build does not ship gets {"type":"object"} (with a warning).',
      ],
      async run(parsed, io) {
        positionals(parsed, []);
        const tool = requiredOption(parsed, "tool");
        if (!TOOL_NAME.test(tool)) throw new UsageError(`Invalid tool name "${tool}": 1-128 letters, digits, "_", "." or "-"`);
        const taskSupport = (option(parsed, "task-support") ?? "optional") as TaskSupport;
        if (!TASK_SUPPORT.includes(taskSupport)) throw new UsageError(`--task-support must be one of ${TASK_SUPPORT.join(", ")}`);
        const workflowName = requiredOption(parsed, "workflow");
        const workflowVersion = intOption(parsed, "version", { min: 1 }) as number;
        const workflow = shippedWorkflows.get(workflowName, workflowVersion);
        if (!workflow)
          io.stderr.write(
            `warning: this build does not ship ${workflowName}@${workflowVersion}; the tool accepts any object as input\n`,
          );
        const route = await withDatabase(io, async (sql) => {
          const tenant = await requireTenant(sql, requiredOption(parsed, "tenant"));
          return insertRouteRevision(sql, {
            tenantId: tenant.id,
            toolName: tool,
            workflowName,
            workflowVersion,
            title: option(parsed, "title") ?? workflow?.title ?? null,
            description: option(parsed, "description") ?? workflow?.description ?? "",
            inputSchema: toolInputSchema(workflow),
            taskSupport,
            maxTtlMs: intOption(parsed, "max-ttl-ms", { min: 1_000 }) ?? null,
            syncDeadlineMs: intOption(parsed, "sync-deadline-ms", { min: 0, max: 2_147_483_647 }),
          });
        });
        if (parsed.flags.has("json")) printJson(io, route);
        else print(io.stdout, `Route ${describeRoute(route)}`);
        return EXIT.completed;
      },
    },
    {
      name: "list",
      args: "",
      summary: "List routes: the current revision of each tool",
      options: [
        { name: "tenant", value: "slug", description: "Only this tenant's routes" },
        { name: "all-revisions", description: "Every revision, newest first" },
        JSON_FLAG,
      ],
      async run(parsed, io) {
        positionals(parsed, []);
        const rows = await withDatabase(io, async (sql) => {
          const slug = option(parsed, "tenant");
          return listRouteRevisions(sql, slug ? (await requireTenant(sql, slug)).id : undefined);
        });
        const seen = new Set<string>();
        const shown = parsed.flags.has("all-revisions")
          ? rows
          : rows.filter((row) => {
              const key = `${row.tenant_id}/${row.tool_name}`;
              if (seen.has(key)) return false;
              seen.add(key);
              return true;
            });
        if (parsed.flags.has("json")) printJson(io, shown);
        else {
          printTable(
            io,
            ["TENANT", "TOOL", "REV", "WORKFLOW", "TASK SUPPORT", "STATE", "CREATED"],
            shown.map((r) => [
              r.tenant_slug,
              r.tool_name,
              String(r.revision),
              `${r.workflow_name}@${r.workflow_version}`,
              r.task_support,
              r.disabled_at ? "disabled" : "active",
              isoOrDash(r.created_at),
            ]),
          );
        }
        return EXIT.completed;
      },
    },
    {
      name: "disable",
      args: "",
      summary: "Disable a tool (adds a disabled revision; `routes add` enables it again)",
      options: [
        { name: "tenant", value: "slug", description: "The tenant's slug", required: true },
        { name: "tool", value: "name", description: "MCP tool name", required: true },
        JSON_FLAG,
      ],
      async run(parsed, io) {
        positionals(parsed, []);
        const tool = requiredOption(parsed, "tool");
        const route = await withDatabase(io, async (sql) => {
          const tenant = await requireTenant(sql, requiredOption(parsed, "tenant"));
          const disabled = await disableRoute(sql, tenant.id, tool);
          if (!disabled) throw new CliError(`No active tool "${tool}" for tenant ${tenant.slug}`);
          return disabled;
        });
        if (parsed.flags.has("json")) printJson(io, route);
        else print(io.stdout, `Disabled ${describeRoute(route)}`);
        return EXIT.completed;
      },
    },
  ],
});
