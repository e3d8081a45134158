import { pageOperator } from "@/lib/ui/page-operator";
import { presentRoutes } from "@/lib/ui/presenters/routes";
import { AutoRefresh } from "../_components/auto-refresh";
import { Card, PageHeader } from "../_components/ui";
import { RouteForm } from "./route-form";
import { RouteList } from "./route-list";

export const dynamic = "force-dynamic";

export default async function RoutesPage() {
  const { operator, ctx } = await pageOperator();
  const view = await presentRoutes(ctx.sql, operator);
  return (
    <>
      <AutoRefresh seconds={15} />
      <PageHeader title="Routes" description="Which MCP tool runs which workflow version, per tenant. Every change is a new revision." />
      <div className="grid gap-4 xl:grid-cols-3">
        <div className="xl:col-span-2">
          <RouteList routes={view.routes} />
        </div>
        <Card title="Add or revise a route">
          <RouteForm tenants={view.tenants} knownWorkflows={view.knownWorkflows} />
        </Card>
      </div>
    </>
  );
}
