import { type AdminApi, allPages, seg } from "./admin-api";
import { CliError, intValue, required, table } from "./args";
import { TASK_VERBS } from "./task-verbs";
import { ADMIN, positional, type Row, text, type Verb } from "./verb";

function list(api: AdminApi, path: string, field: string, query: Record<string, string | undefined> = {}) {
  return allPages<Row>(api, path, field, query);
}

/** The verbs of `runifold` in HTTP mode, the same names and options as the repository's CLI (docs/cli.md). */
const ADMIN_VERBS: Record<string, Verb> = {
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
};

/** Every verb: the admin objects here, tasks and approvals in task-verbs.ts. */
export const VERBS: Record<string, Verb> = { ...ADMIN_VERBS, ...TASK_VERBS };
