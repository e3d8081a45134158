"use client";

import { useRouter, useSearchParams } from "next/navigation";
import { signIn } from "next-auth/react";
import { type FormEvent, Suspense, useState } from "react";
import type { SignInMethods } from "@/lib/auth";
import { safeCallbackPath } from "./safe-callback";

const input =
  "mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-500/30";
const primary =
  "rounded-md bg-indigo-600 px-4 py-2 text-sm font-medium text-white hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:opacity-60";
const secondary =
  "rounded-md border border-slate-300 bg-white px-4 py-2 text-sm font-medium text-slate-800 shadow-sm hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:opacity-60";

type FormProps = { methods: SignInMethods; initialError: string | null };

function Form({ methods, initialError }: FormProps) {
  const router = useRouter();
  const search = useSearchParams();
  // An error the server reported (?error=…: an SSO refusal, a failed callback) until the next attempt.
  const [error, setError] = useState<string | null>(initialError);
  const [busy, setBusy] = useState(false);
  // Only a path on this origin, checked after URL parsing (safe-callback.ts).
  const callbackPath = () => safeCallbackPath(search.get("callbackUrl"), window.location.origin);

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
    router.replace(callbackPath());
    router.refresh();
  }

  async function onSso() {
    if (!methods.sso) return;
    setBusy(true);
    setError(null);
    // next-auth posts with its CSRF token and sends the browser on to the identity provider.
    await signIn(methods.sso.providerId, { callbackUrl: callbackPath() });
  }

  return (
    <div className="mt-6 flex flex-col gap-4 rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
      {error && (
        <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800">
          {error}
        </p>
      )}
      {methods.sso && (
        <button type="button" onClick={onSso} disabled={busy} className={methods.password ? secondary : primary}>
          Sign in with {methods.sso.name}
        </button>
      )}
      {methods.sso && methods.password && (
        <p className="flex items-center gap-3 text-xs uppercase tracking-wide text-slate-500">
          <span className="h-px flex-1 bg-slate-200" />
          or with a password
          <span className="h-px flex-1 bg-slate-200" />
        </p>
      )}
      {methods.password && (
        <form onSubmit={onSubmit} className="flex flex-col gap-4" noValidate>
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

export function LoginForm(props: FormProps) {
  return (
    <Suspense>
      <Form {...props} />
    </Suspense>
  );
}
