import type { Metadata } from "next";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { currentSignInMethods } from "@/lib/auth/web";
import { CSRF_ISSUED_PARAM } from "@/lib/server/auth-route";
import { LoginForm } from "./login-form";
import { callbackPathFromQuery } from "./safe-callback";
import { secondFactorDue } from "./second-factor-due";
import { signInErrorMessage } from "./sign-in-errors";

export const metadata: Metadata = { title: "Sign in · Runifold" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/** next-auth's CSRF cookie (`<token>|<hash>`); the __Host- name when cookies are secure (https). */
const CSRF_COOKIES = ["__Host-next-auth.csrf-token", "next-auth.csrf-token"];

/**
 * The forms post straight to next-auth (a plain POST with its CSRF token), so signing in works
 * before the page's scripts load and never puts the password in a URL. Without the CSRF cookie yet,
 * the browser first fetches one (/login/csrf), once: a browser that refuses cookies is told so
 * (the `csrf=issued` marker on the way back stops a loop).
 * Reading searchParams renders per request: the methods follow this server's env, not the build's.
 */
export default async function LoginPage({ searchParams }: Props) {
  const params = await searchParams;
  // The password was right and the second factor is due: that step, keeping where sign-in was going.
  if (await secondFactorDue())
    redirect(`/login/mfa?${new URLSearchParams({ callbackUrl: callbackPathFromQuery(params.callbackUrl) })}`);
  const methods = currentSignInMethods();
  const store = await cookies();
  const csrfToken = CSRF_COOKIES.map((name) => store.get(name)?.value.split("|")[0]).find(Boolean) ?? null;
  const issued = params[CSRF_ISSUED_PARAM] === "issued";
  if (!csrfToken && !issued) redirect(`/login/csrf?${queryOf(params)}`);
  // The cookie came back: the marker has done its job and leaves the address bar.
  if (csrfToken && issued) redirect(`/login?${queryOf({ ...params, [CSRF_ISSUED_PARAM]: undefined })}`);
  const code = csrfToken ? (typeof params.error === "string" ? params.error : null) : "cookies_refused";
  return (
    <main className="mx-auto flex min-h-screen max-w-sm flex-col justify-center px-6 py-12">
      <h1 className="text-2xl font-semibold tracking-tight">Sign in to Runifold</h1>
      <p className="mt-1 text-sm text-slate-600">Operators only. MCP clients use API keys instead.</p>
      <LoginForm
        methods={methods}
        csrfToken={csrfToken ?? ""}
        callbackPath={callbackPathFromQuery(params.callbackUrl)}
        initialError={signInErrorMessage(code, methods.sso?.name ?? "single sign-on")}
      />
    </main>
  );
}

function queryOf(params: Record<string, string | string[] | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) query.append(name, one);
  }
  return query.toString();
}
