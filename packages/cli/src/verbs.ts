import { type AdminApi, allPages, seg } from "./admin-api";
import { CliError, intValue, type Parsed, required, table } from "./args";

export type Output = { out(text: string): void; json(value: unknown): void };

export type Verb = {
  usage: string;
  summary: string;
  /** Options besides --url, --token and --json; `flags` take no value. */
  options: string[];
  flags?: string[];
  run(api: AdminApi, parsed: Parsed, output: Output): Promise<number>;
};

const ADMIN = "/api/v1/admin/";
type Row = Record<string, unknown>;
const text = (value: unknown) => (value === null || value === undefined ? "-" : String(value));

function list(api: AdminApi, path: string, field: string, query: Record<string, string | undefined> = {}) {
  return allPages<Row>(api, path, field, query);
}

/** The verbs of `runifold` in HTTP mode, the same names and options as the repository's CLI (docs/cli.md). */
export const VERBS: Record<string, Verb> = {
  "tenants list": {
    usage: "tenants list [--json]",
    summary: "The tenants the token's operator sees",
    options: [],
    async run(api, parsed, output) {
      const tenants = await list(api, "tenants", "tenants");
      if (parsed.flags.has("json")) output.json(tenants);
      else
        output.out(
          table(
            ["SLUG", "NAME", "ID"],
            tenants.map((t) => [text(t.slug), text(t.name), text(t.id)]),
          ),
        );
      return 0;
    },
  },
  "definitions list": {
    usage: "definitions list [--json]",
    summary: "Workflow definitions workers published, and how many online workers serve each",
    options: [],
    async run(api, parsed, output) {
      const definitions = await list(api, "definitions", "definitions");
      if (parsed.flags.has("json")) output.json(definitions);
      else
        output.out(
          table(
            ["WORKFLOW", "REVISION", "SERVED", "TITLE"],
            definitions.map((d) => [text(d.key), text(d.revision), text(d.servedBy), text(d.title)]),
          ),
        );
      return 0;
    },
  },
  "routes list": {
    usage: "routes list --tenant <slug> [--all-revisions] [--json]",
    summary: "A tenant's routes: the current revision of each tool",
    options: ["tenant"],
    flags: ["all-revisions"],
    async run(api, parsed, output) {
      const query = parsed.flags.has("all-revisions") ? { allRevisions: "true" } : {};
      const routes = await list(api, `tenants/${seg(required(parsed, "tenant"))}/routes`, "routes", query);
      if (parsed.flags.has("json")) output.json(routes);
      else
        output.out(
          table(
            ["TOOL", "REV", "WORKFLOW", "STATE"],
            routes.map((r) => [
              text(r.tool_name),
              text(r.revision),
              `${r.workflow_name}@${r.workflow_version}`,
              r.disabled_at ? "disabled" : "active",
            ]),
          ),
        );
      return 0;
    },
  },
  "routes add": {
    usage:
      "routes add --tenant <slug> --tool <name> --workflow <name> --version <n> [--task-support mode] [--title T] [--description D] [--input-schema JSON] [--allow-unpublished] [--json]",
    summary: "Add a tool, or a new revision of an existing one",
    options: [
      "tenant",
      "tool",
      "workflow",
      "version",
      "task-support",
      "title",
      "description",
      "input-schema",
      "sync-deadline-ms",
      "max-ttl-ms",
    ],
    flags: ["allow-unpublished"],
    async run(api, parsed, output) {
      const schema = parsed.values.get("input-schema");
      let inputSchema: unknown;
      try {
        inputSchema = schema === undefined ? undefined : JSON.parse(schema);
      } catch {
        throw new CliError("--input-schema is not valid JSON");
      }
      const saved = await api.request<{ route: Row; servedBy: number }>(
        "POST",
        `${ADMIN}tenants/${seg(required(parsed, "tenant"))}/routes`,
        {
          toolName: required(parsed, "tool"),
          workflowName: required(parsed, "workflow"),
          workflowVersion: intValue(parsed, "version") ?? required(parsed, "version"),
          taskSupport: parsed.values.get("task-support"),
          title: parsed.values.get("title"),
          description: parsed.values.get("description"),
          inputSchema,
          syncDeadlineMs: intValue(parsed, "sync-deadline-ms"),
          maxTtlMs: intValue(parsed, "max-ttl-ms"),
          allowUnpublished: parsed.flags.has("allow-unpublished"),
        },
      );
      if (parsed.flags.has("json")) output.json(saved.route);
      else
        output.out(
          `Route ${saved.route.tool_name} → ${saved.route.workflow_name}@${saved.route.workflow_version} (revision ${saved.route.revision})`,
        );
      return 0;
    },
  },
  "keys create": {
    usage: "keys create --tenant <slug> [--scopes mcp,tasks:read,tasks:write] [--name N] [--expires-in-days N]",
    summary: "Create an API key; the token is printed once, alone on the last line of stdout",
    options: ["tenant", "scopes", "name", "expires-in-days"],
    async run(api, parsed, output) {
      const slug = required(parsed, "tenant");
      const scopes = parsed.values
        .get("scopes")
        ?.split(",")
        .map((scope) => scope.trim());
      const created = await api.request<{ keyId: string; token: string; scopes: string[]; expiresAt: string | null }>(
        "POST",
        `${ADMIN}tenants/${seg(slug)}/keys`,
        { name: parsed.values.get("name") ?? "cli", scopes, expiresInDays: intValue(parsed, "expires-in-days") },
      );
      output.out(
        `Created key ${created.keyId} for ${slug} (scopes: ${created.scopes.join(",")}; expires: ${created.expiresAt ?? "never"}). Token (shown once):`,
      );
      output.out(created.token);
      return 0;
    },
  },
  "keys list": {
    usage: "keys list --tenant <slug> [--json]",
    summary: "A tenant's API keys (never their secrets)",
    options: ["tenant"],
    async run(api, parsed, output) {
      const keys = await list(api, `tenants/${seg(required(parsed, "tenant"))}/keys`, "keys");
      if (parsed.flags.has("json")) output.json(keys);
      else
        output.out(
          table(
            ["KEY ID", "NAME", "SCOPES", "REVOKED", "CREATED"],
            keys.map((k) => [text(k.id), text(k.name), (k.scopes as string[]).join(","), text(k.revoked_at), text(k.created_at)]),
          ),
        );
      return 0;
    },
  },
  "keys revoke": {
    usage: "keys revoke <keyId> --tenant <slug> [--json]",
    summary: "Revoke a key of a tenant (takes effect on its next request)",
    options: ["tenant"],
    async run(api, parsed, output) {
      const keyId = positional(parsed, "keyId");
      await api.request("DELETE", `${ADMIN}tenants/${seg(required(parsed, "tenant"))}/keys/${seg(keyId)}`);
      if (parsed.flags.has("json")) output.json({ keyId, revoked: true });
      else output.out(`Revoked key ${keyId}`);
      return 0;
    },
  },
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

function positional(parsed: Parsed, name: string): string {
  const [value, ...rest] = parsed.positionals;
  if (!value || rest.length > 0) throw new CliError(`Expected one <${name}>`);
  return value;
}
