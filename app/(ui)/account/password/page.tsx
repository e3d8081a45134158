import Link from "next/link";
import { pageOperator } from "@/lib/ui/page-operator";
import { Card, PageHeader } from "../../_components/ui";
import { ChangePasswordForm, SignOutEverywhereButton } from "../account-forms";

export const dynamic = "force-dynamic";

// Reachable while an admin's reset asks for a new password: every other page sends the operator here.
export default async function PasswordPage() {
  const { operator } = await pageOperator({ duringPasswordChange: true });
  return (
    <>
      <PageHeader title="Account" description={`Signed in as ${operator.email}.`} />
      <div className="grid gap-4 lg:grid-cols-2">
        <Card title="Change password">
          <ChangePasswordForm />
        </Card>
        <Card title="Two-factor authentication">
          <p className="mb-3 text-sm text-slate-600">
            A code from an authenticator app after your password at every sign-in, with one-time recovery codes.
          </p>
          <Link href="/account/mfa" className="text-sm font-medium text-indigo-700 hover:underline">
            Manage two-factor authentication
          </Link>
        </Card>
        <Card title="API tokens">
          <p className="mb-3 text-sm text-slate-600">
            Tokens for the admin HTTP API and the CLI from your laptop: they act as you, within their scopes.
          </p>
          <Link href="/account/tokens" className="text-sm font-medium text-indigo-700 hover:underline">
            Manage API tokens
          </Link>
        </Card>
        <Card title="Sessions">
          <p className="mb-3 text-sm text-slate-600">
            Ends every session of your account at once, on every browser and device, this one included.
          </p>
          <SignOutEverywhereButton />
        </Card>
      </div>
    </>
  );
}
