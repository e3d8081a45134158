/**
 * A client of a Runifold server's admin HTTP API (`/api/v1/admin/*`, docs/api.md) and approvals API,
 * authenticated with an operator API token (`rfo_…`, the console's Account → API tokens). No
 * dependencies: Node's fetch.
 */
export type AdminApi = {
  origin: string;
  /** One request; a non-2xx answer throws AdminApiError with the server's message. */
  request<T>(method: "GET" | "POST" | "DELETE", path: string, body?: unknown, headers?: Record<string, string>): Promise<T>;
};

export class AdminApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
  ) {
    super(message);
    this.name = "AdminApiError";
  }
}

/** `url`: the server (any URL on it: its origin is used, so the MCP URL works too). */
export function createAdminApi(options: { url: string; token: string; signal?: AbortSignal }): AdminApi {
  const origin = new URL(options.url).origin;
  return {
    origin,
    async request<T>(method: "GET" | "POST" | "DELETE", path: string, body?: unknown, headers: Record<string, string> = {}) {
      let response: Response;
      try {
        response = await fetch(new URL(path, origin), {
          method,
          headers: {
            authorization: `Bearer ${options.token}`,
            accept: "application/json",
            ...(body === undefined ? {} : { "content-type": "application/json" }),
            ...headers,
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: options.signal,
        });
      } catch (error) {
        const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
        throw new AdminApiError(`Cannot reach ${origin}: ${cause}`, 0, "unreachable");
      }
      const answer = (await response.json().catch(() => undefined)) as { message?: unknown; error?: unknown } | undefined;
      if (response.ok) return answer as T;
      const message = typeof answer?.message === "string" ? answer.message : `Unexpected answer from ${origin}`;
      const code = typeof answer?.error === "string" ? answer.error : "http_error";
      throw new AdminApiError(response.status === 404 ? message : `${message} (HTTP ${response.status})`, response.status, code);
    },
  };
}

/** Every page of an admin list (`{ <field>: [...], nextCursor }`), following nextCursor. */
export async function allPages<T>(
  api: AdminApi,
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
    const page = await api.request<Record<string, unknown>>("GET", `/api/v1/admin/${path}?${params}`);
    items.push(...((page[field] as T[]) ?? []));
    cursor = typeof page.nextCursor === "string" ? page.nextCursor : undefined;
  } while (cursor);
  return items;
}

/** A path segment (a slug, a key or task ID), percent-encoded. */
export function seg(value: string): string {
  return encodeURIComponent(value);
}
