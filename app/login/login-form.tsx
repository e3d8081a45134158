"use client";

import { useRouter, useSearchParams } from "next/navigation";
import { signIn } from "next-auth/react";
import { type FormEvent, Suspense, useState } from "react";
import { safeCallbackPath } from "./safe-callback";

const input =
  "mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-500/30";

function Form() {
  const router = useRouter();
  const search = useSearchParams();
  const [error, setError] = useState<string | null>(null);
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
    // Only a path on this origin, checked after URL parsing (safe-callback.ts).
    router.replace(safeCallbackPath(search.get("callbackUrl"), window.location.origin));
    router.refresh();
  }

  return (
    <form
      onSubmit={onSubmit}
      className="mt-6 flex flex-col gap-4 rounded-lg border border-slate-200 bg-white p-5 shadow-sm"
      noValidate
    >
      <label className="text-sm font-medium text-slate-700">
        Email
        <input name="email" type="email" autoComplete="username" required maxLength={320} className={input} />
      </label>
      <label className="text-sm font-medium text-slate-700">
        Password
        <input name="password" type="password" autoComplete="current-password" required maxLength={200} className={input} />
      </label>
      {error && (
        <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800">
          {error}
        </p>
      )}
      <button
        type="submit"
        disabled={busy}
        className="rounded-md bg-indigo-600 px-4 py-2 text-sm font-medium text-white hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:opacity-60"
      >
        {busy ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}

export function LoginForm() {
  return (
    <Suspense>
      <Form />
    </Suspense>
  );
}
