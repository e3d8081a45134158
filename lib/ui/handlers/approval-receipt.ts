import "server-only";
import type { OperatorContext } from "../../auth";
import { noteIfDenied, requireOperator } from "../../auth";
import { isAppError } from "../../errors";
import { presentTaskApprovals } from "../presenters/task-approvals";

// GET /api/ui/tasks/:id/approvals/:key/receipt – the approval's signed receipt as a download (the
// compact JWS, `runifold approvals verify <file>` checks it). Session-authenticated; another tenant's
// task, an unknown key or an approval not settled yet is the same 404.
export async function handleApprovalReceipt(ctx: OperatorContext, taskId: string, key: string): Promise<Response> {
  try {
    const operator = await requireOperator(ctx);
    const approval = (await presentTaskApprovals(ctx.sql, operator, taskId)).find((item) => item.key === key);
    if (!approval?.receipt) return Response.json({ error: "not_found", message: "No receipt." }, { status: 404 });
    const name = `receipt-${taskId}-${key.replace(/[^A-Za-z0-9._-]/g, "_")}.jws`;
    return new Response(`${approval.receipt}\n`, {
      headers: {
        "content-type": "application/jose; charset=utf-8",
        "content-disposition": `attachment; filename="${name}"`,
        "cache-control": "no-store",
      },
    });
  } catch (error) {
    await noteIfDenied(ctx, error, "api:/api/ui/tasks/{id}/approvals/{key}/receipt", { taskId });
    if (isAppError(error)) return error.toResponse();
    throw error;
  }
}
