import { OPERATOR_TOKEN_SCOPES } from "@/lib/auth";
import { pageOperator } from "@/lib/ui/page-operator";
import { operatorTokenViews } from "@/lib/ui/presenters/operator-tokens";
import { Card, PageHeader } from "../../_components/ui";
import { TokensPanel } from "./tokens-forms";

export const dynamic = "force-dynamic";

/**
 * Account → API tokens (docs/security.md "Operator API tokens"): the operator's own tokens for the
 * admin HTTP API and the CLI's HTTP mode. Every form posts to a server action and works before
 * scripts load; a new token's secret is shown once.
 */
export default async function TokensPage() {
  const { operator, ctx } = await pageOperator();
  const tokens = await operatorTokenViews(ctx.sql, operator.id);
  return (
    <>
      <PageHeader
        title="API tokens"
        description={`Tokens for the admin HTTP API and \`runifold --url … --token …\`. A token acts as ${operator.email} (${operator.role}), within its scopes, on the tenants you can see; it stops working when revoked, expired, or when your account is disabled.`}
      />
      <Card>
        <TokensPanel tokens={tokens} scopes={[...OPERATOR_TOKEN_SCOPES]} />
      </Card>
    </>
  );
}
