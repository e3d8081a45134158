import { createWebSignalHandler } from "@/lib/server/signal-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const handleSignal = createWebSignalHandler();

// POST /api/v1/tasks/{id}/signals/{name} – send a signal to a task (Bearer key with tasks:write; body = payload JSON).
export async function POST(request: Request, context: { params: Promise<{ id: string; name: string }> }): Promise<Response> {
  return handleSignal(request, await context.params);
}
