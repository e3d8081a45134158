import { webContext } from "@/lib/auth/web";
import { handleApprovalReceipt } from "@/lib/ui/handlers/approval-receipt";

export const dynamic = "force-dynamic";

// GET /api/ui/tasks/:id/approvals/:key/receipt – the approval's signed receipt as a file (session-authenticated).
export async function GET(_request: Request, context: { params: Promise<{ id: string; key: string }> }): Promise<Response> {
  const { id, key } = await context.params;
  return handleApprovalReceipt(webContext(), id, key);
}
