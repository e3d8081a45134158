import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { AuthenticationStepRequired, requireOperator } from "@/lib/auth";
import { webContext } from "@/lib/auth/web";
import { isAppError } from "@/lib/errors";
import { callbackPathFromQuery } from "../safe-callback";
import { submitSecondFactor } from "./actions";

export const metadata: Metadata = { title: "Two-factor authentication · Runifold" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

const ERRORS: Record<string, string> = {
  invalid: "That code is not right. Enter the current code from your authenticator app, or a recovery code.",
  throttled: "Too many wrong codes. Try again in a few minutes.",
};

/**
 * The sign-in's second step: after the password, an operator with two-factor authentication on
 * lands here (the console sends a session whose second factor is due nowhere else). A plain POST
 * to a server action, so it works before the page's scripts run. Without a session: the sign-in
 * page; with the step already done: on to where the sign-in was going.
 */
export default async function SecondFactorPage({ searchParams }: Props) {
  const params = await searchParams;
  const callbackPath = callbackPathFromQuery(params.callbackUrl);
  let due = false;
  try {
    await requireOperator(webContext(), { duringPasswordChange: true, duringMfaEnrolment: true });
  } catch (error) {
    if (error instanceof AuthenticationStepRequired && error.step === "second_factor") due = true;
    else if (isAppError(error) && error.code === "unauthenticated")
      redirect(`/login?${new URLSearchParams({ callbackUrl: callbackPath })}`);
    else throw error;
  }
  if (!due) redirect(callbackPath);
  const message = typeof params.error === "string" ? (ERRORS[params.error] ?? null) : null;
  return (
    <main className="mx-auto flex min-h-screen max-w-sm flex-col justify-center px-6 py-12">
      <h1 className="text-2xl font-semibold tracking-tight">Two-factor authentication</h1>
      <p className="mt-1 text-sm text-slate-600">
        Enter the 6-digit code from your authenticator app, or one of your recovery codes.
      </p>
      <div className="mt-6 flex flex-col gap-4 rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
        {message && (
          <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800">
            {message}
          </p>
        )}
        <form action={submitSecondFactor} aria-label="Two-factor code" className="flex flex-col gap-4">
          <input type="hidden" name="callbackUrl" value={callbackPath} />
          <label className="text-sm font-medium text-slate-700">
            Code
            <input
              name="code"
              autoComplete="one-time-code"
              required
              maxLength={40}
              // biome-ignore lint/a11y/noAutofocus: the page's only field, right after the password step
              autoFocus
              className="mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-500/30"
            />
          </label>
          <button
            type="submit"
            className="rounded-md bg-indigo-600 px-4 py-2 text-sm font-medium text-white hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
          >
            Verify
          </button>
        </form>
        <a href="/api/auth/signout" className="text-center text-sm text-slate-600 underline">
          Cancel and sign out
        </a>
      </div>
    </main>
  );
}
