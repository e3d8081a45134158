"use client";

import { useQuery } from "@tanstack/react-query";

type Health = { ok: boolean; database?: string; reason?: string };

/** How often the console asks GET /api/health while a page is open. */
const HEALTH_POLL_MS = 10_000;

/**
 * A banner while the store takes no writes or cannot be reached (GET /api/health answers 503: a
 * failover in progress, a standby answering, the database down). During a failover the console's
 * reads still work (the standby answers them), so without it an operator would see pages render and
 * every action fail. Polled from the browser: the pages themselves never wait on it. Gone once
 * the health answers 200 again (docs/deploy.md "High availability").
 */
export function StoreBanner() {
  const { data } = useQuery<Health | null>({
    queryKey: ["store-health"],
    queryFn: async () => {
      const response = await fetch("/api/health", { cache: "no-store" });
      return (await response.json().catch(() => null)) as Health | null;
    },
    refetchInterval: HEALTH_POLL_MS,
    retry: false,
  });
  if (!data || data.ok) return null;
  const what =
    data.database === "read-only"
      ? "The store is not taking writes right now (a failover may be in progress): pages show what it last stored, and actions fail until a primary answers."
      : data.database === "unreachable"
        ? "The store cannot be reached: pages and actions fail until it answers again."
        : "The deployment is not ready.";
  return (
    <div
      role="alert"
      data-testid="store-banner"
      className="border-b border-amber-300 bg-amber-50 px-4 py-2 text-sm text-amber-900"
    >
      <p className="mx-auto max-w-7xl sm:px-2">
        {what}
        {data.reason ? <span className="text-amber-800"> ({data.reason})</span> : null}
      </p>
    </div>
  );
}
