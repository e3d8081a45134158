import { createWebApprovalsListHandler } from "@/lib/server/approvals-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const handleList = createWebApprovalsListHandler();

// GET /api/v1/approvals – the open approvals the caller (an operator's OAuth token or API key) may decide; ?all=true: every open one of the tenant.
export async function GET(request: Request): Promise<Response> {
  return handleList(request);
}
