import { webContext } from "@/lib/auth/web";
import { handleTaskList } from "@/lib/ui/handlers/task-handlers";

export const dynamic = "force-dynamic";

// GET /api/ui/tasks – the operator's live task list (session-authenticated; see handleTaskList).
export function GET(request: Request): Promise<Response> {
  return handleTaskList(webContext(), request);
}
