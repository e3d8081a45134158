import { closeSync, openSync, writeSync } from "node:fs";
import { createRuntimeLogins, type RuntimeKind } from "@runifold/store";
import { resolveDatabaseUrl } from "@runifold/store/embedded";
import { readEnv } from "../../../lib/env";
import { CliError, option, positionals, UsageError } from "../../args";
import { PROJECT_ROOT, withDatabase } from "../../db";
import { EXIT } from "../../exit-codes";
import { print, printJson } from "../../output";
import { registerCommand } from "../registry";

registerCommand({
  name: "db",
  summary: "The database's own setup: the runtime login roles web and workers connect as",
  verbs: [
    {
      name: "create-runtime-role",
      args: "",
      summary: "Create (or re-password) runifold_web_<db> and runifold_worker_<db> and print their DATABASE_URLs",
      options: [
        { name: "kind", value: "web|worker", description: "Only this login (default: both)" },
        {
          name: "login",
          value: "NAME",
          description: "With --kind: a login of that kind's group under this name (e.g. one per team's workers)",
        },
        { name: "out", value: "FILE", description: "Write the URLs to FILE (a new file, mode 0600) instead of stdout" },
        { name: "json", description: "Machine-readable output (one JSON document)" },
      ],
      notes: [
        "Run as the database's owner with CREATEROLE (DATABASE_URL of the migrate job), after the migrations.",
        "The web login is in runifold_rt_<db> (rows of this database only), the worker login in runifold_wk_<db> (the same minus the sign-in and OAuth tables); docs/deploy.md, Database roles.",
        "Each run sets new passwords: restart web and workers with the new URLs.",
      ],
      async run(parsed, io) {
        positionals(parsed, []);
        const kind = option(parsed, "kind");
        if (kind !== undefined && kind !== "web" && kind !== "worker") throw new UsageError("--kind must be web or worker");
        const kinds: RuntimeKind[] = kind ? [kind] : ["web", "worker"];
        const login = option(parsed, "login");
        if (login !== undefined && !kind) throw new UsageError("--login needs --kind web or --kind worker");
        if (login !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(login))
          throw new UsageError("--login: lower-case letters, digits and _ (at most 63)");
        const ownerUrl = resolveDatabaseUrl(readEnv(io.env), PROJECT_ROOT);
        const result = await withDatabase(io, async (sql) => {
          try {
            return await createRuntimeLogins(sql, { ownerUrl, kinds, users: kind && login ? { [kind]: login } : undefined });
          } catch (error) {
            if ((error as { code?: string }).code === "42501")
              throw new CliError(`${(error as Error).message}: run it as the database's owner with CREATEROLE (or a superuser)`);
            throw error;
          }
        });
        const lines = result.logins.map((login) => `${login.kind.toUpperCase()}_DATABASE_URL=${login.url}`);
        const out = option(parsed, "out");
        if (out) {
          // `wx`: never overwrite (or follow a link planted at) an existing file.
          const fd = openSync(out, "wx", 0o600);
          try {
            writeSync(fd, `${lines.join("\n")}\n`);
          } finally {
            closeSync(fd);
          }
        }
        const shown = result.logins.map((login) => ({
          kind: login.kind,
          user: login.user,
          group: login.group,
          url: out ? undefined : login.url,
        }));
        if (parsed.flags.has("json")) printJson(io, { logins: shown, file: out });
        else {
          for (const login of result.logins) print(io.stdout, `${login.user} (in ${login.group})`);
          print(io.stdout, out ? `DATABASE_URLs written to ${out} (mode 0600)` : lines.join("\n"));
        }
        return EXIT.completed;
      },
    },
  ],
});
