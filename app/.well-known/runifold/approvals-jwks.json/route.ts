import { createWebApprovalsJwksHandler } from "@/lib/server/approvals-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const handleJwks = createWebApprovalsJwksHandler();

// GET – the public keys (JWKS) that approval receipts are signed with, newest first; no credential needed.
export async function GET(): Promise<Response> {
  return handleJwks();
}
