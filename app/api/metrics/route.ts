import { createWebMetricsHandler } from "@/lib/server/metrics-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// GET /api/metrics – Prometheus text format; RUNIFOLD_METRICS_TOKEN (Bearer) or loopback only.
export const GET = createWebMetricsHandler();
