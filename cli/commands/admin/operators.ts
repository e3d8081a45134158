import { findOperatorByEmail, listOperators, type OperatorRole } from "../../../db/queries/operators";
import {
  createOperator,
  resetOperatorMfa,
  resetOperatorPassword,
  setOperatorDisabled,
  setOperatorGroups,
  signOutEverywhere,
} from "../../../lib/admin";
import { CliError, option, positionals, requiredOption } from "../../args";
import { requireTenant, withAdmin, withDatabase } from "../../db";
import { EXIT } from "../../exit-codes";
import { isoOrDash, print, printJson, printTable } from "../../output";
import { type CliIo, registerCommand } from "../registry";
import { PASSWORD_OPTIONS, readPassword } from "./password-source";

const JSON_FLAG = { name: "json", description: "Machine-readable output (one JSON document)" };
const EMAIL = { name: "email", value: "E", description: "The operator's login email", required: true };

async function operatorId(sql: Parameters<typeof findOperatorByEmail>[0], email: string): Promise<string> {
  const operator = await findOperatorByEmail(sql, email);
  if (!operator) throw new CliError(`No operator ${email}`);
  return operator.id;
}

function done(io: CliIo, json: boolean, value: Record<string, unknown>, line: string): number {
  if (json) printJson(io, value);
  else print(io.stdout, line);
  return EXIT.completed;
}

registerCommand({
  name: "operators",
  summary: "Operator logins for the web UI: create, list, disable, reset passwords or two-factor, end sessions",
  verbs: [
    {
      name: "create",
      args: "",
      summary: "Create an operator (admin: every tenant; operator: its member tenants)",
      options: [
        EMAIL,
        ...PASSWORD_OPTIONS,
        { name: "role", value: "admin|operator", description: "The operator's role", required: true },
        { name: "tenant", value: "slug", description: "Make the operator a member of this tenant" },
        { name: "name", value: "N", description: "Display name" },
        { name: "must-change-password", description: "Ask for a new password at the first sign-in" },
        JSON_FLAG,
      ],
      notes: [
        "The password (12 to 200 characters) comes from --password-stdin or RUNIFOLD_PASSWORD, never from argv if you can help it.",
      ],
      async run(parsed, io) {
        positionals(parsed, []);
        const slug = option(parsed, "tenant");
        const password = await readPassword(io, { stdin: parsed.flags.has("password-stdin"), argv: option(parsed, "password") });
        const request = {
          email: requiredOption(parsed, "email"),
          password,
          role: requiredOption(parsed, "role"),
          name: option(parsed, "name"),
          mustChangePassword: parsed.flags.has("must-change-password"),
        };
        const created = await withAdmin(io, async (ctx) => {
          const tenant = slug ? await requireTenant(ctx.sql, slug) : undefined;
          // The role is checked with the other rules by lib/admin (a usage error when it is neither).
          const operator = await createOperator(ctx, { ...request, role: request.role as OperatorRole, tenantId: tenant?.id });
          return { id: operator.id, email: operator.email, role: operator.role, tenants: tenant ? [tenant.slug] : [] };
        });
        if (parsed.flags.has("json")) printJson(io, created);
        else {
          const membership = created.tenants.length > 0 ? `, member of ${created.tenants.join(", ")}` : "";
          print(io.stdout, `Created ${created.role} ${created.email} (${created.id})${membership}`);
          if (created.role === "operator" && created.tenants.length === 0)
            io.stderr.write("note: an operator without tenants sees nothing; add --tenant <slug>\n");
        }
        return EXIT.completed;
      },
    },
    {
      name: "list",
      args: "",
      summary: "List operators (never their password hashes)",
      options: [JSON_FLAG],
      async run(parsed, io) {
        positionals(parsed, []);
        const operators = await withDatabase(io, (sql) => listOperators(sql));
        if (parsed.flags.has("json")) printJson(io, operators);
        else
          printTable(
            io,
            ["EMAIL", "ROLE", "STATE", "MFA", "TENANTS", "CREATED"],
            operators.map((o) => [
              o.email,
              o.role,
              o.disabled_at ? "disabled" : o.must_change_password ? "must change password" : "active",
              o.mfa_enabled_at ? "totp" : "-",
              o.role === "admin" ? "all" : o.tenant_slugs.join(",") || "-",
              isoOrDash(o.created_at),
            ]),
          );
        return EXIT.completed;
      },
    },
    {
      name: "disable",
      args: "",
      summary:
        "Disable an operator: its sessions and OAuth grants end at once, and the API keys it created are revoked unless --keep-keys",
      options: [
        EMAIL,
        { name: "keep-keys", description: "Leave the API keys this operator created active (they are revoked by default)" },
        { name: "revoke-keys", description: "Revoke the API keys this operator created (the default; kept for old scripts)" },
        JSON_FLAG,
      ],
      async run(parsed, io) {
        positionals(parsed, []);
        const email = requiredOption(parsed, "email");
        const result = await withAdmin(io, async (ctx) =>
          setOperatorDisabled(ctx, {
            operatorId: await operatorId(ctx.sql, email),
            disabled: true,
            revokeKeys: !parsed.flags.has("keep-keys"),
          }),
        );
        const keys = result.revokedKeys > 0 ? `; revoked ${result.revokedKeys} key(s)` : "";
        return done(io, parsed.flags.has("json"), { email, disabled: true, ...result }, `Disabled ${email}${keys}`);
      },
    },
    {
      name: "groups",
      args: "set <email> <groups>",
      summary: 'Set an operator\'s groups (comma-separated; "" for none), which approval policies name (audited)',
      options: [JSON_FLAG],
      notes: ["Example: runifold operators groups set cfo@example.com finance,board"],
      async run(parsed, io) {
        const [action, email, list] = positionals(parsed, ["action", "email", "groups"]) as [string, string, string];
        if (action !== "set") throw new CliError(`Unknown action "${action}": use operators groups set <email> <groups>`);
        const groups = list
          .split(",")
          .map((group) => group.trim())
          .filter(Boolean);
        const stored = await withAdmin(io, async (ctx) =>
          setOperatorGroups(ctx, { operatorId: await operatorId(ctx.sql, email), groups }),
        );
        return done(io, parsed.flags.has("json"), { email, groups: stored }, `${email}: groups ${stored.join(", ") || "(none)"}`);
      },
    },
    {
      name: "enable",
      args: "",
      summary: "Enable a disabled operator (its old sessions stay ended)",
      options: [EMAIL, JSON_FLAG],
      async run(parsed, io) {
        positionals(parsed, []);
        const email = requiredOption(parsed, "email");
        await withAdmin(io, async (ctx) =>
          setOperatorDisabled(ctx, { operatorId: await operatorId(ctx.sql, email), disabled: false }),
        );
        return done(io, parsed.flags.has("json"), { email, disabled: false }, `Enabled ${email}`);
      },
    },
    {
      name: "reset-password",
      args: "",
      summary: "Set a random temporary password (printed once) that must be changed at the next sign-in; ends every session",
      options: [EMAIL, JSON_FLAG],
      async run(parsed, io) {
        positionals(parsed, []);
        const email = requiredOption(parsed, "email");
        const reset = await withAdmin(io, async (ctx) =>
          resetOperatorPassword(ctx, { operatorId: await operatorId(ctx.sql, email) }),
        );
        return done(
          io,
          parsed.flags.has("json"),
          reset,
          `Temporary password for ${reset.email} (pass it on privately; it must be changed at sign-in):\n${reset.temporaryPassword}`,
        );
      },
    },
    {
      name: "reset-mfa",
      args: "",
      summary: "Remove an operator's two-factor authentication (secret and recovery codes); ends every session",
      options: [EMAIL, JSON_FLAG],
      notes: [
        "For a lost device without recovery codes, or after RUNIFOLD_MFA_KEY (or NEXTAUTH_SECRET) changed. An admin then enrols again at its next sign-in.",
      ],
      async run(parsed, io) {
        positionals(parsed, []);
        const email = requiredOption(parsed, "email");
        const reset = await withAdmin(io, async (ctx) => resetOperatorMfa(ctx, { operatorId: await operatorId(ctx.sql, email) }));
        const line = reset.hadMfa
          ? `Removed two-factor authentication of ${reset.email}; its sessions have ended`
          : `${reset.email} had no two-factor authentication; its sessions have ended`;
        return done(io, parsed.flags.has("json"), { email: reset.email, hadMfa: reset.hadMfa, sessionsEnded: true }, line);
      },
    },
    {
      name: "sign-out-everywhere",
      args: "",
      summary: "End every console session of an operator at once",
      options: [EMAIL, JSON_FLAG],
      async run(parsed, io) {
        positionals(parsed, []);
        const email = requiredOption(parsed, "email");
        await withAdmin(io, async (ctx) => signOutEverywhere(ctx, { operatorId: await operatorId(ctx.sql, email) }));
        return done(io, parsed.flags.has("json"), { email, sessionsEnded: true }, `Ended every session of ${email}`);
      },
    },
  ],
});
