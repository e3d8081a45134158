import { webContext } from "@/lib/auth/web";
import { handleTaskDetail } from "@/lib/ui/handlers/task-handlers";

export const dynamic = "force-dynamic";

// GET /api/ui/tasks/:id – one task for the detail page (session-authenticated; see handleTaskDetail).
export async function GET(request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await context.params;
  return handleTaskDetail(webContext(), request, id);
}
