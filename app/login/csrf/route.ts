import type { NextRequest } from "next/server";
import { issueSignInCsrf } from "@/lib/server/auth-route";

// GET /login/csrf – sets next-auth's CSRF cookie and returns to /login (lib/server/auth-route.ts).
export function GET(request: NextRequest): Promise<Response> {
  return issueSignInCsrf(request);
}
