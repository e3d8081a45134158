import { webContext } from "@/lib/auth/web";
import { handleAuditCsv } from "@/lib/ui/handlers/audit-handlers";

export const dynamic = "force-dynamic";

// GET /api/ui/audit.csv – the Audit page's filtered events as a CSV download (session-authenticated; see handleAuditCsv).
export function GET(request: Request): Promise<Response> {
  return handleAuditCsv(webContext(), request);
}
