import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";
import type { SqlHandle } from "./client";
import { withUser } from "./connection-url";

/** The processes that connect at run time, each with a login role of its own. */
export type RuntimeKind = "web" | "worker";

export type RuntimeLogin = { kind: RuntimeKind; user: string; group: string; password: string; url: string };

/**
 * The database's runtime logins (review 3, F3/F4; migrations 0035, 0036): `runifold_web_<db>` for
 * the web, in the database's own NOLOGIN group role `runifold_rt_<db>` (rows only, CONNECT to this
 * database only), and `runifold_worker_<db>` for workers, in `runifold_wk_<db>` (the same minus the
 * sign-in and OAuth tables); neither superuser nor BYPASSRLS. Creates the group roles when missing
 * and grants them; a login that exists gets the new password (so running it again rotates them).
 * `users` names another login of the kind's group instead (a team's own workers, each with its own URL).
 * `sql` must be the owner's connection, with CREATEROLE (or a superuser). A password not given is
 * generated. Passwords reach the server only as SCRAM verifiers, so a statement log never holds one.
 */
export async function createRuntimeLogins(
  sql: SqlHandle,
  options: {
    ownerUrl: string;
    passwords?: Partial<Record<RuntimeKind, string>>;
    kinds?: RuntimeKind[];
    /** Another login of the kind's group than the default name (a team's own workers). */
    users?: Partial<Record<RuntimeKind, string>>;
  },
): Promise<{ logins: RuntimeLogin[] }> {
  const [names] = await sql<{ rt: string; wk: string; web: string; worker: string }[]>`
    SELECT runifold_runtime_role() AS rt, runifold_worker_role() AS wk,
           runifold_role_name('web') AS web, runifold_role_name('worker') AS worker`;
  if (!names) throw new Error("runifold_runtime_role() is missing: run the migrations first");
  const groups: Record<RuntimeKind, { role: string; grant: string }> = {
    web: { role: names.rt, grant: "runifold_grant_runtime" },
    worker: { role: names.wk, grant: "runifold_grant_worker" },
  };
  const logins: RuntimeLogin[] = [];
  for (const kind of options.kinds ?? (["web", "worker"] as const)) {
    const group = groups[kind].role;
    const [exists] = await sql`SELECT 1 FROM pg_roles WHERE rolname = ${group}`;
    if (!exists) await sql.unsafe(`CREATE ROLE ${ident(group)} NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS`);
    await sql.unsafe(`SELECT ${groups[kind].grant}($1::text)`, [group]);
    const user = options.users?.[kind] ?? names[kind];
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(user))
      throw new Error(`a login name is lower-case letters, digits and _ (at most 63): ${user}`);
    const password = options.passwords?.[kind] || randomBytes(24).toString("base64url");
    const verifier = scramVerifier(password);
    const attributes = `LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS NOREPLICATION INHERIT PASSWORD '${verifier}'`;
    const [found] = await sql`SELECT 1 FROM pg_roles WHERE rolname = ${user}`;
    await sql.unsafe(`${found ? "ALTER" : "CREATE"} ROLE ${ident(user)} WITH ${attributes}`);
    await sql.unsafe(`GRANT ${ident(group)} TO ${ident(user)}`);
    logins.push({ kind, user, group, password, url: withUser(options.ownerUrl, user, password) });
  }
  return { logins };
}

/** A PostgreSQL SCRAM-SHA-256 verifier (RFC 5802/7677), as `ALTER ROLE … PASSWORD` stores it. */
export function scramVerifier(password: string, iterations = 4096): string {
  if (!/^[\x21-\x7e]+$/.test(password)) throw new Error("a runtime role password must be printable ASCII without spaces");
  const salt = randomBytes(16);
  const salted = pbkdf2Sync(password, salt, iterations, 32, "sha256");
  const clientKey = createHmac("sha256", salted).update("Client Key").digest();
  const storedKey = createHash("sha256").update(clientKey).digest();
  const serverKey = createHmac("sha256", salted).update("Server Key").digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString("base64")}$${storedKey.toString("base64")}:${serverKey.toString("base64")}`;
}

function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
