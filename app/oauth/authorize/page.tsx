import type { Metadata } from "next";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { AuthenticationStepRequired, type Operator, PasswordChangeRequired, requireOperator } from "@/lib/auth";
import { webContext } from "@/lib/auth/web";
import { isAppError } from "@/lib/errors";
import { webOAuthConfig } from "@/lib/server/oauth-config";
import { presentConsent } from "@/lib/ui/presenters/consent";
import { ConsentForm } from "./consent-form";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Connect a client · Runifold" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/**
 * The OAuth authorization endpoint (GET /oauth/authorize) is this page: the person signs in, sees
 * which client asks, where the answer goes and for what, picks a tenant and approves or denies.
 * lib/oauth validates the request. An invalid one is an error page, never an automatic redirect
 * (RFC 9700 §4.11.2: anyone can register a client, so its redirect URI is not trusted enough); when
 * the redirect URI is the client's registered one, the page offers a link back to it, naming its host.
 */
export default async function AuthorizePage({ searchParams }: { searchParams: SearchParams }) {
  const params = toSearchParams(await searchParams);
  const config = webOAuthConfig();
  if (!config) {
    return (
      <Shell>
        <Refusal title="OAuth is off" description="This server has no RUNIFOLD_PUBLIC_URL, so it does not authorize clients." />
      </Shell>
    );
  }
  const ctx = webContext();
  const operator = await signedInOperator(ctx, `/oauth/authorize?${params}`);
  const view = await presentConsent(ctx.sql, config, operator, params);
  if (view.kind === "error") {
    return (
      <Shell>
        <Refusal
          title="This authorization request cannot be used"
          description={`${sentence(view.description)} Nothing was sent back to the client; start the connection again from the client.`}
          code={view.error}
        >
          {view.returnTo && (
            <p className="mt-3 text-sm text-slate-700">
              To tell the client, you may{" "}
              <a href={view.returnTo.url} rel="noreferrer" className="font-medium text-indigo-700 underline">
                return to {view.returnTo.host}
              </a>{" "}
              with this error. Follow it only if you started this connection from a client you trust.
            </p>
          )}
        </Refusal>
      </Shell>
    );
  }
  return (
    <Shell>
      <ConsentForm view={view} operatorEmail={operator.email} />
    </Shell>
  );
}

/**
 * requireOperator as the console pages use it, except that signing in comes back here with the
 * whole authorize query (the login page accepts any same-origin path, app/login/safe-callback.ts).
 * A forced password change comes first, as for every console page.
 */
async function signedInOperator(ctx: ReturnType<typeof webContext>, back: string): Promise<Operator> {
  try {
    return await requireOperator(ctx);
  } catch (error) {
    if (error instanceof PasswordChangeRequired) redirect("/account/password");
    // An admin who must enrol a second factor does so first (a due second factor is "unauthenticated").
    if (error instanceof AuthenticationStepRequired && error.step === "mfa_enrolment") redirect("/account/mfa");
    if (isAppError(error) && error.code === "unauthenticated") redirect(`/login?callbackUrl=${encodeURIComponent(back)}`);
    throw error;
  }
}

/** lib/oauth's descriptions are RFC 6749 error_description fragments ("unknown client_id"). */
function sentence(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** Keeps repeated parameters repeated: lib/oauth refuses a request that repeats one. */
function toSearchParams(record: Record<string, string | string[] | undefined>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(record)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) params.append(key, item);
  }
  return params;
}

function Shell({ children }: { children: ReactNode }) {
  return (
    <main className="mx-auto flex min-h-screen max-w-lg flex-col justify-center px-6 py-12">
      <p className="text-lg font-semibold tracking-tight text-slate-900">Runifold</p>
      {children}
    </main>
  );
}

function Refusal({
  title,
  description,
  code,
  children,
}: {
  title: string;
  description: string;
  code?: string;
  children?: ReactNode;
}) {
  return (
    <section className="mt-4 rounded-lg border border-red-200 bg-white p-5 shadow-sm">
      <h1 className="text-xl font-semibold tracking-tight text-slate-900">{title}</h1>
      <p role="alert" className="mt-2 text-sm text-red-800">
        {description}
      </p>
      {code && <p className="mt-3 font-mono text-xs text-slate-500">error: {code}</p>}
      {children}
    </section>
  );
}
