import { healthResponse } from "@/lib/health";
import { getSql } from "@/lib/server/db";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function GET(): Promise<Response> {
  return healthResponse(getSql);
}
