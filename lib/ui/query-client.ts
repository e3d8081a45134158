import { isServer, QueryClient } from "@tanstack/react-query";

/** A failed UI API call, with its HTTP status (401/403/404 are final: retrying cannot help). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 1_000,
        retry: (failures, error) => !(error instanceof HttpError && error.status < 500) && failures < 2,
      },
    },
  });
}

let browserClient: QueryClient | undefined;

/** THE query client of the browser (one per tab); a fresh one per server render. */
export function getQueryClient(): QueryClient {
  if (isServer) return makeQueryClient();
  browserClient ??= makeQueryClient();
  return browserClient;
}

/** GET a UI API route; an ended session goes back to the sign-in page. */
export async function fetchJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { cache: "no-store", headers: { accept: "application/json" } });
  if (response.status === 401 && typeof window !== "undefined") window.location.assign("/login");
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { message?: string };
    throw new HttpError(response.status, body.message ?? `HTTP ${response.status}`);
  }
  return (await response.json()) as T;
}
