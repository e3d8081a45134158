import Link from "next/link";
import type { ReactNode } from "react";
import { pageOperator } from "@/lib/ui/page-operator";
import { NavLinks } from "./_components/nav-links";
import { Providers } from "./_components/providers";
import { SignOutButton } from "./_components/sign-out-button";
import { StoreBanner } from "./_components/store-banner";

// The operator console shell. Each page under it checks the operator again (layouts are not
// re-run on every navigation, so this check is for the header only, never the only one).
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  // The shell renders during a forced password change and an admin's required MFA enrolment too
  // (their pages need it); each page checks again with its own options.
  const { operator } = await pageOperator({ duringPasswordChange: true, duringMfaEnrolment: true });
  return (
    <Providers>
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3 sm:px-6">
          <Link href="/overview" className="text-lg font-semibold tracking-tight text-slate-900">
            Runifold
          </Link>
          <NavLinks isAdmin={operator.role === "admin"} />
          {/* min-w-0: on a phone a long email truncates instead of widening the page past the screen. */}
          <div className="ml-auto flex min-w-0 max-w-full items-center gap-2 text-sm text-slate-600">
            <Link href="/account/password" className="min-w-0 truncate hover:underline" title={operator.email}>
              {operator.email} <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-600">{operator.role}</span>
            </Link>
            <SignOutButton />
          </div>
        </div>
      </header>
      <StoreBanner />
      <main className="mx-auto max-w-7xl px-4 py-6 sm:px-6">{children}</main>
    </Providers>
  );
}
