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
  /** One admin API request; a non-2xx answer becomes a CliError with the server's message. */
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

/** The HTTP mode's client when a token is given (a token without a server is a usage error); undefined: database mode. */
export function adminHttp(parsed: Parsed, io: CliIo): AdminHttp | undefined {
  const token = tokenOf(parsed, io);
  if (!token) return undefined;
  const origin = serverOrigin(parsed, io);
  if (!origin) throw new UsageError("An operator token needs the server: pass --url or set RUNIFOLD_URL");
  return {
    origin,
    async request<T>(method: "GET" | "POST" | "DELETE", path: string, body?: unknown): Promise<T> {
      const url = new URL(`/api/v1/admin/${path}`, origin);
      let response: Response;
      try {
        response = await fetch(url, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            accept: "application/json",
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: io.signal,
        });
      } catch (error) {
        if (io.signal.aborted) throw error;
        const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
        throw new CliError(`Cannot reach ${origin}: ${cause}`);
      }
      const answer = (await response.json().catch(() => undefined)) as { message?: unknown } | undefined;
      if (response.ok) return answer as T;
      const message = typeof answer?.message === "string" ? answer.message : `Unexpected answer from ${origin}`;
      const hint = response.status === 401 ? " (check --token or RUNIFOLD_TOKEN: Account → API tokens in the console)" : "";
      throw new CliError(response.status === 404 ? message : `${message} (HTTP ${response.status})${hint}`);
    },
  };
}

/** A path segment for the admin API (a slug, a key or task ID): percent-encoded. */
export function seg(value: string): string {
  return encodeURIComponent(value);
}

/** Every page of an admin list, following nextCursor. */
export async function allPages<T>(
  http: AdminHttp,
  path: string,
  field: string,
  query: Record<string, string | undefined> = {},
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const params = new URLSearchParams(
      Object.entries({ ...query, limit: "200", cursor }).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
    const page = await http.request<Record<string, unknown>>("GET", `${path}?${params}`);
    items.push(...((page[field] as T[]) ?? []));
    cursor = typeof page.nextCursor === "string" ? page.nextCursor : undefined;
  } while (cursor);
  return items;
}
