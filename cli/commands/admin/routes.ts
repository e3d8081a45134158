import {
  findLatestRoute,
  listRouteRevisions,
  MAX_SYNC_DEADLINE_MS,
  type RouteRow,
  type TaskSupport,
} from "../../../db/queries/routes";
import {
  definitionsFromStore,
  describeSchedule,
  disableRoute,
  listPublishedDefinitions,
  type SavedRoute,
  saveRoute,
  setRouteSchedule,
  UnpublishedWorkflowError,
} from "../../../lib/admin";
import { type AdminHttp, adminHttp, allPages, HTTP_MODE_OPTIONS, seg } from "../../admin-http";
import { CliError, intOption, option, type Parsed, parseJsonOption, positionals, requiredOption } from "../../args";
import { requireTenant, withAdmin, withDatabase } from "../../db";
import { EXIT } from "../../exit-codes";
import { isoOrDash, print, printJson, printTable } from "../../output";
import { registerCommand } from "../registry";

const JSON_FLAG = { name: "json", description: "Machine-readable output (one JSON document)" };

// The CLI binds routes to the definitions workers published to the store (`definitions list`).

function describeRoute(route: RouteRow): string {
  const state = route.disabled_at ? "disabled" : `task support ${route.task_support}`;
  return `${route.tool_name} → ${route.workflow_name}@${route.workflow_version} (revision ${route.revision}, ${state})`;
}

/** `routes list` over the admin API: the named tenant's routes, or those of every tenant the token's operator sees. */
async function routesOverHttp(http: AdminHttp, parsed: Parsed): Promise<(RouteRow & { tenant_slug: string })[]> {
  const slug = option(parsed, "tenant");
  const slugs = slug ? [slug] : (await allPages<{ slug: string }>(http, "tenants", "tenants")).map((tenant) => tenant.slug);
  const query = parsed.flags.has("all-revisions") ? { allRevisions: "true" } : {};
  const rows: (RouteRow & { tenant_slug: string })[] = [];
  for (const tenant of slugs)
    rows.push(
      ...(await allPages<RouteRow>(http, `tenants/${seg(tenant)}/routes`, "routes", query)).map((row) => ({
        ...row,
        tenant_slug: tenant,
      })),
    );
  return rows;
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
          description:
            "How long a call without a task waits for the result before it answers a task handle (default 30000, at most 900000)",
        },
        { name: "max-ttl-ms", value: "N", description: "Cap on a task handle's lifetime for this tool (default: the tenant's)" },
        { name: "input-schema", value: "JSON", description: "The tool's input JSON Schema (default: the workflow's)" },
        {
          name: "allow-unpublished",
          description: 'Bind a version no worker has published (input schema {"type":"object"})',
        },
        JSON_FLAG,
        ...HTTP_MODE_OPTIONS,
      ],
      notes: [
        "The input schema comes from --input-schema, else from the definition a worker published for that exact version (see `definitions list`); an unpublished version is refused unless --allow-unpublished (then any object is accepted, with a warning).",
      ],
      async run(parsed, io) {
        positionals(parsed, []);
        const slug = requiredOption(parsed, "tenant");
        const schema = option(parsed, "input-schema");
        const request = {
          toolName: requiredOption(parsed, "tool"),
          workflowName: requiredOption(parsed, "workflow"),
          workflowVersion: intOption(parsed, "version", { min: 1 }) as number,
          // lib/admin checks the value with the console's rules (a usage error when it is none of them).
          taskSupport: (option(parsed, "task-support") ?? "optional") as TaskSupport,
          title: option(parsed, "title"),
          description: option(parsed, "description"),
          maxTtlMs: intOption(parsed, "max-ttl-ms", { min: 1_000 }) ?? null,
          syncDeadlineMs: intOption(parsed, "sync-deadline-ms", { min: 0, max: MAX_SYNC_DEADLINE_MS }),
          inputSchema: schema === undefined ? undefined : (parseJsonOption(schema, "--input-schema") as Record<string, unknown>),
          allowUnpublished: parsed.flags.has("allow-unpublished"),
        };
        const http = adminHttp(parsed, io);
        const { route, inputSchemaFrom, servedBy } = http
          ? await http.request<SavedRoute & { servedBy: number }>("POST", `tenants/${seg(slug)}/routes`, request)
          : await withAdmin(io, async (ctx) => {
              const tenantId = (await requireTenant(ctx.sql, slug)).id;
              const saved = await saveRoute(
                { ...ctx, resolveDefinition: definitionsFromStore(ctx.sql) },
                { ...request, tenantId },
              ).catch((error: unknown) => {
                if (error instanceof UnpublishedWorkflowError)
                  throw new CliError(
                    `No worker has published ${error.workflowKey} (see \`runifold definitions list\`); pass --allow-unpublished to bind it anyway.`,
                  );
                throw error;
              });
              const key = `${request.workflowName}@${request.workflowVersion}`;
              const served = (await listPublishedDefinitions(ctx)).find((d) => d.key === key)?.servedBy ?? 0;
              return { ...saved, servedBy: served };
            });
        if (inputSchemaFrom !== "unpublished" && servedBy === 0) {
          io.stderr.write(
            `note: no online worker serves ${request.workflowName}@${request.workflowVersion} now; calls wait as tasks until one does\n`,
          );
        }
        if (inputSchemaFrom === "unpublished") {
          io.stderr.write(
            `warning: no worker has published ${request.workflowName}@${request.workflowVersion}; the tool accepts any object as input\n`,
          );
        }
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
        ...HTTP_MODE_OPTIONS,
      ],
      async run(parsed, io) {
        positionals(parsed, []);
        const http = adminHttp(parsed, io);
        const rows = http
          ? await routesOverHttp(http, parsed)
          : await withDatabase(io, async (sql) => {
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
            ["TENANT", "TOOL", "REV", "WORKFLOW", "TASK SUPPORT", "STATE", "SCHEDULE", "CREATED"],
            shown.map((r) => [
              r.tenant_slug,
              r.tool_name,
              String(r.revision),
              `${r.workflow_name}@${r.workflow_version}`,
              r.task_support,
              r.disabled_at ? "disabled" : "active",
              r.schedule_cron ? `${r.schedule_cron} (${r.schedule_timezone ?? "UTC"}, catch-up ${r.schedule_catch_up})` : "-",
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
        const slug = requiredOption(parsed, "tenant");
        const toolName = requiredOption(parsed, "tool");
        const route = await withAdmin(io, async (ctx) =>
          disableRoute(ctx, { tenantId: (await requireTenant(ctx.sql, slug)).id, toolName }),
        );
        if (parsed.flags.has("json")) printJson(io, route);
        else print(io.stdout, `Disabled ${describeRoute(route)}`);
        return EXIT.completed;
      },
    },
    {
      name: "schedule",
      args: "",
      summary: "Set, clear or preview a tool's cron schedule (a new revision; one scheduler fires it)",
      options: [
        { name: "tenant", value: "slug", description: "The tenant's slug", required: true },
        { name: "tool", value: "name", description: "MCP tool name", required: true },
        { name: "cron", value: "expr", description: '5 or 6 cron fields, e.g. "0 9 * * 1-5"' },
        { name: "timezone", value: "tz", description: "IANA timezone (default UTC)" },
        { name: "catch-up", value: "policy", description: "After downtime: skip missed fire times (default) or fire one run" },
        { name: "input", value: "JSON", description: "Tool arguments each scheduled run starts with (default {})" },
        { name: "clear", description: "Remove the schedule" },
        { name: "preview", value: "n", description: "Only print the next n fire times of the current schedule" },
        JSON_FLAG,
      ],
      async run(parsed, io) {
        positionals(parsed, []);
        const slug = requiredOption(parsed, "tenant");
        const toolName = requiredOption(parsed, "tool");
        const cron = option(parsed, "cron");
        const preview = intOption(parsed, "preview", { min: 1, max: 100 });
        const clear = parsed.flags.has("clear");
        if ([cron !== undefined, clear, preview !== undefined].filter(Boolean).length !== 1) {
          throw new CliError("pass exactly one of --cron, --clear or --preview");
        }
        if (preview !== undefined) {
          const route = await withDatabase(io, async (sql) => {
            const found = await findLatestRoute(sql, (await requireTenant(sql, slug)).id, toolName);
            if (!found) throw new CliError(`No tool "${toolName}" for tenant ${slug}`);
            return found;
          });
          const described = describeSchedule(route, preview);
          if (parsed.flags.has("json")) printJson(io, described);
          else if (!described) print(io.stdout, `${toolName} has no schedule`);
          else {
            print(io.stdout, `${described.cron} (${described.timezone}, catch-up ${described.catchUp}); next fire times:`);
            for (const at of described.next) print(io.stdout, `  ${at}`);
          }
          return EXIT.completed;
        }
        const input = option(parsed, "input");
        const schedule = clear
          ? null
          : {
              cron: cron as string,
              timezone: option(parsed, "timezone"),
              catchUp: option(parsed, "catch-up") as "skip" | "one" | undefined,
              input: input === undefined ? undefined : (parseJsonOption(input, "--input") as Record<string, unknown>),
            };
        const route = await withAdmin(io, async (ctx) =>
          setRouteSchedule(ctx, { tenantId: (await requireTenant(ctx.sql, slug)).id, toolName, schedule }),
        );
        if (parsed.flags.has("json")) printJson(io, route);
        else {
          const described = describeSchedule(route, 3);
          print(
            io.stdout,
            described
              ? `Scheduled ${describeRoute(route)}: ${described.cron} (${described.timezone}); next ${described.next.join(", ")}`
              : `Cleared the schedule of ${describeRoute(route)}`,
          );
        }
        return EXIT.completed;
      },
    },
  ],
});
