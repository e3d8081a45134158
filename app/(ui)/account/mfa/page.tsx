import { mfaRequest } from "@/lib/server/mfa-request";
import { pageOperator } from "@/lib/ui/page-operator";
import { mfaStatus } from "@/lib/ui/presenters/mfa";
import { Card, PageHeader } from "../../_components/ui";
import { MfaPanel } from "./mfa-forms";

export const dynamic = "force-dynamic";

// Reachable while an admin is required to enrol (RUNIFOLD_ADMIN_MFA=required): every other page
// sends such an admin here. Every form posts to a server action and works without scripts.
export default async function MfaPage() {
  const { operator, ctx } = await pageOperator({ duringMfaEnrolment: true });
  const status = await mfaStatus(ctx.sql, operator, (await mfaRequest()).keyMaterial);
  const required = ctx.adminMfaRequired === true && operator.role === "admin" && status.state !== "on";
  return (
    <>
      <PageHeader
        title="Two-factor authentication"
        description="A code from an authenticator app on your phone, asked for after your password at every sign-in."
      />
      {required && (
        <p role="alert" className="mb-4 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          Admins must set up two-factor authentication before using the console.
        </p>
      )}
      <Card>
        <MfaPanel status={status} />
      </Card>
    </>
  );
}
