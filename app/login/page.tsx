import type { Metadata } from "next";
import { currentSignInMethods } from "@/lib/auth/web";
import { LoginForm } from "./login-form";
import { signInErrorMessage } from "./sign-in-errors";

export const metadata: Metadata = { title: "Sign in · Runifold" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

// Reading searchParams renders per request: the methods follow this server's env, not the build's.
export default async function LoginPage({ searchParams }: Props) {
  const params = await searchParams;
  const methods = currentSignInMethods();
  const code = typeof params.error === "string" ? params.error : null;
  return (
    <main className="mx-auto flex min-h-screen max-w-sm flex-col justify-center px-6 py-12">
      <h1 className="text-2xl font-semibold tracking-tight">Sign in to Runifold</h1>
      <p className="mt-1 text-sm text-slate-600">Operators only. MCP clients use API keys instead.</p>
      <LoginForm methods={methods} initialError={signInErrorMessage(code, methods.sso?.name ?? "single sign-on")} />
    </main>
  );
}
