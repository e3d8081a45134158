import { callbackPathFromQuery } from "@/app/login/safe-callback";
import { pageOperator } from "@/lib/ui/page-operator";
import { buttonClass, Card, inputClass, PageHeader } from "../../_components/ui";
import { confirmIdentity } from "./actions";

export const dynamic = "force-dynamic";

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

const ERRORS: Record<string, string> = {
  invalid: "That is not your password or a current code.",
  throttled: "Too many attempts. Try again in a few minutes.",
};

/**
 * "Confirm it is you" (ASVS 3.7.1): minting an API key, creating an admin, binding a route and
 * approving an OAuth client need a sign-in, second factor or confirmation within the last 10
 * minutes; a refused action names this page. A plain POST: it works before scripts load.
 */
export default async function ConfirmPage({ searchParams }: Props) {
  const params = await searchParams;
  const { operator } = await pageOperator();
  const callbackPath = callbackPathFromQuery(params.callbackUrl ?? "/account/password");
  const message = typeof params.error === "string" ? (ERRORS[params.error] ?? null) : null;
  return (
    <>
      <PageHeader
        title="Confirm it is you"
        description={`Signed in as ${operator.email}. Minting API keys, creating admins, binding routes and approving OAuth clients need a confirmation within the last 10 minutes.`}
      />
      <Card className="max-w-md">
        {message && (
          <p role="alert" className="mb-3 rounded-md bg-red-50 px-3 py-2 text-sm text-red-800">
            {message}
          </p>
        )}
        <form action={confirmIdentity} aria-label="Confirm it is you" className="flex flex-col gap-3">
          <input type="hidden" name="callbackUrl" value={callbackPath} />
          <label className="flex flex-col gap-1 text-sm font-medium text-slate-700">
            Password or authenticator code
            <input
              name="secret"
              type="password"
              required
              maxLength={200}
              autoComplete="current-password"
              className={inputClass}
            />
          </label>
          <button type="submit" className={`${buttonClass} self-start`}>
            Confirm
          </button>
        </form>
        <p className="mt-3 text-xs text-slate-500">
          Signed in with single sign-on and no password of your own? Sign out and sign in again: a fresh sign-in counts too.
        </p>
      </Card>
    </>
  );
}
