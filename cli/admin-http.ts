import { type AdminApi, AdminApiError, allPages as allPagesOf, createAdminApi } from "@runifold/cli";
import { CliError, type OptionSpec, option, type Parsed, UsageError } from "./args";
import type { CliIo } from "./commands/registry";

/**
 * The admin verbs' HTTP mode (docs/cli.md "HTTP mode"): given a server (`--url` or RUNIFOLD_URL; its
 * origin, so the MCP URL the client verbs use works too) and an operator API token (`--token` or
 * RUNIFOLD_TOKEN, from the console's Account → API tokens), a verb asks the server's admin API
 * (/api/v1/admin/*) instead of connecting to the database — from a laptop, as the token's operator.
 * Without a token the verb uses the database, as on the server host.
 */
export const TOKEN_OPTION: OptionSpec = {
  name: "token",
  value: "TOKEN",
  description: "HTTP mode: an operator API token rfo_… (default $RUNIFOLD_TOKEN) for the admin API at --url's origin",
};

export const HTTP_MODE_OPTIONS: OptionSpec[] = [
  {
    name: "url",
    value: "URL",
    description: "HTTP mode: the server (its origin; default $RUNIFOLD_URL) — used together with a token",
  },
  {
    ...TOKEN_OPTION,
    description: "HTTP mode: an operator API token rfo_… (default $RUNIFOLD_TOKEN); without one, the database is used",
  },
];

export type AdminHttp = {
  origin: string;
  /** The server's API as @runifold/cli (the installable HTTP-mode CLI) calls it, its refusals as CliErrors. */
  api: AdminApi;
  /** One admin API request (`path` under /api/v1/admin/); a non-2xx answer becomes a CliError with the server's message. */
  request<T>(method: "GET" | "POST" | "DELETE", path: string, body?: unknown): Promise<T>;
};

export function tokenOf(parsed: Parsed, io: CliIo): string | undefined {
  return option(parsed, "token") ?? (io.env.RUNIFOLD_TOKEN || undefined);
}

/** The server's origin from --url / RUNIFOLD_URL, or undefined when neither is given. */
export function serverOrigin(parsed: Parsed, io: CliIo): string | undefined {
  const url = option(parsed, "url") ?? (io.env.RUNIFOLD_URL || undefined);
  if (url === undefined) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    throw new UsageError(`Invalid --url "${url}"`);
  }
}

/**
 * The HTTP mode's client when a token is given (a token without a server is a usage error); undefined:
 * database mode. The requests are @runifold/cli's (the installable HTTP-mode CLI), one client for both.
 */
export function adminHttp(parsed: Parsed, io: CliIo): AdminHttp | undefined {
  const token = tokenOf(parsed, io);
  if (!token) return undefined;
  const origin = serverOrigin(parsed, io);
  if (!origin) throw new UsageError("An operator token needs the server: pass --url or set RUNIFOLD_URL");
  const client = createAdminApi({ url: origin, token, signal: io.signal });
  const api: AdminApi = {
    origin,
    async request(method, path, body, headers) {
      try {
        return await client.request(method, path, body, headers);
      } catch (error) {
        if (!(error instanceof AdminApiError) || io.signal.aborted) throw error;
        const hint = error.status === 401 ? " (check --token or RUNIFOLD_TOKEN: Account → API tokens in the console)" : "";
        throw new CliError(`${error.message}${hint}`);
      }
    },
  };
  return { origin, api, request: (method, path, body) => api.request(method, `/api/v1/admin/${path}`, body) };
}

/** A path segment for the admin API (a slug, a key or task ID): percent-encoded. */
export { seg } from "@runifold/cli";

/** Every page of an admin list, following nextCursor (`path` under /api/v1/admin/). */
export function allPages<T>(
  http: AdminHttp,
  path: string,
  field: string,
  query: Record<string, string | undefined> = {},
): Promise<T[]> {
  return allPagesOf<T>(http.api, path, field, query);
}
