import { createWebApprovalDecisionHandler } from "@/lib/server/approvals-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const handleDecision = createWebApprovalDecisionHandler();

// POST /api/v1/approvals/{taskId}/{key}/decisions – approve or reject ({ decision, comment?, fields? }), as the person behind the credential.
export async function POST(request: Request, context: { params: Promise<{ taskId: string; key: string }> }): Promise<Response> {
  return handleDecision(request, await context.params);
}
