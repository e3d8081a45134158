"use client";

import { useRouter } from "next/navigation";
import { signIn } from "next-auth/react";
import { type FormEvent, useState } from "react";
import type { SignInMethods } from "@/lib/auth";

const input =
  "mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-500/30";
const primary =
  "rounded-md bg-indigo-600 px-4 py-2 text-sm font-medium text-white hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:opacity-60";
const secondary =
  "rounded-md border border-slate-300 bg-white px-4 py-2 text-sm font-medium text-slate-800 shadow-sm hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:opacity-60";

type FormProps = {
  methods: SignInMethods;
  initialError: string | null;
  /** next-auth's CSRF token (from its cookie), posted by the forms when they submit without scripts. */
  csrfToken: string;
  /** Where to go after sign-in: a path on this origin (safe-callback.ts), checked on the server. */
  callbackPath: string;
};

/**
 * Both forms are plain POSTs to next-auth with its CSRF token, so they sign in before the page's
 * scripts load (a failure comes back as /login?error=…). Once hydrated, the password form signs in
 * by fetch instead and shows a failure in place.
 */
export function LoginForm({ methods, initialError, csrfToken, callbackPath }: FormProps) {
  const router = useRouter();
  // An error the server reported (?error=…: an SSO refusal, a failed callback) until the next attempt.
  const [error, setError] = useState<string | null>(initialError);
  const [busy, setBusy] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const data = new FormData(event.currentTarget);
    const result = await signIn("credentials", { redirect: false, email: data.get("email"), password: data.get("password") });
    setBusy(false);
    if (!result || result.error) {
      // One message for unknown email and wrong password; a lock says only "wait".
      setError(
        result?.error === "throttled" ? "Too many failed attempts. Try again in a few minutes." : "Invalid email or password.",
      );
      return;
    }
    router.replace(callbackPath);
    router.refresh();
  }

  async function onSso(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!methods.sso) return;
    setBusy(true);
    setError(null);
    // next-auth posts with its CSRF token and sends the browser on to the identity provider.
    await signIn(methods.sso.providerId, { callbackUrl: callbackPath });
  }

  const hidden = (
    <>
      <input type="hidden" name="csrfToken" value={csrfToken} />
      <input type="hidden" name="callbackUrl" value={callbackPath} />
    </>
  );

  return (
    <div className="mt-6 flex flex-col gap-4 rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
      {error && (
        <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800">
          {error}
        </p>
      )}
      {methods.sso && (
        <form method="post" action={`/api/auth/signin/${methods.sso.providerId}`} onSubmit={onSso} className="flex flex-col">
          {hidden}
          <button type="submit" disabled={busy} className={methods.password ? secondary : primary}>
            Sign in with {methods.sso.name}
          </button>
        </form>
      )}
      {methods.sso && methods.password && (
        <p className="flex items-center gap-3 text-xs uppercase tracking-wide text-slate-500">
          <span className="h-px flex-1 bg-slate-200" />
          or with a password
          <span className="h-px flex-1 bg-slate-200" />
        </p>
      )}
      {methods.password && (
        <form
          method="post"
          action="/api/auth/callback/credentials"
          onSubmit={onSubmit}
          className="flex flex-col gap-4"
          noValidate
        >
          {hidden}
          <label className="text-sm font-medium text-slate-700">
            Email
            <input name="email" type="email" autoComplete="username" required maxLength={320} className={input} />
          </label>
          <label className="text-sm font-medium text-slate-700">
            Password
            <input name="password" type="password" autoComplete="current-password" required maxLength={200} className={input} />
          </label>
          <button type="submit" disabled={busy} className={primary}>
            {busy ? "Signing in…" : "Sign in"}
          </button>
        </form>
      )}
    </div>
  );
}
