import { pageOperator } from "@/lib/ui/page-operator";
import { presentRoutes } from "@/lib/ui/presenters/routes";
import { AutoRefresh } from "../_components/auto-refresh";
import { Card, PageHeader } from "../_components/ui";
import { RouteForm } from "./route-form";
import { RouteList } from "./route-list";

export const dynamic = "force-dynamic";

export default async function RoutesPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const { operator, ctx } = await pageOperator();
  const view = await presentRoutes(ctx.sql, operator);
  // "Revise" links prefill the form from the route's current revision (only routes the operator sees).
  const { revise } = await searchParams;
  const current = view.routes.find((route) => `${route.tenantId}/${route.tool}` === revise);
  return (
    <>
      <AutoRefresh seconds={15} />
      <PageHeader
        title="Routes"
        description="Which MCP tool runs which workflow version, per tenant. Every change is a new revision."
      />
      <div className="grid gap-4 xl:grid-cols-3">
        <div className="xl:col-span-2">
          <RouteList routes={view.routes} />
        </div>
        <Card title={current ? `Revise ${current.tenantSlug}/${current.tool}` : "Add or revise a route"}>
          <RouteForm key={revise ?? "new"} tenants={view.tenants} knownWorkflows={view.knownWorkflows} current={current} />
        </Card>
      </div>
    </>
  );
}
