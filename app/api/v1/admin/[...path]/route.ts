import { createWebAdminApiHandler } from "@/lib/server/admin-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const handleAdmin = createWebAdminApiHandler();

type Context = { params: Promise<{ path: string[] }> };

// /api/v1/admin/* – the admin HTTP API for operator API tokens (tenants, routes, definitions, keys, tasks); one handler routes them all.
export async function GET(request: Request, context: Context): Promise<Response> {
  return handleAdmin(request, (await context.params).path);
}

export async function POST(request: Request, context: Context): Promise<Response> {
  return handleAdmin(request, (await context.params).path);
}

export async function DELETE(request: Request, context: Context): Promise<Response> {
  return handleAdmin(request, (await context.params).path);
}
