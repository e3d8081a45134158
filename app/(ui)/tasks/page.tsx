import { Suspense } from "react";
import { pageOperator } from "@/lib/ui/page-operator";
import { presentRoutes } from "@/lib/ui/presenters/routes";
import { PageHeader } from "../_components/ui";
import { TaskList } from "./task-list";

export const dynamic = "force-dynamic";

export default async function TasksPage() {
  const { operator, ctx } = await pageOperator();
  const { tenants, routes } = await presentRoutes(ctx.sql, operator);
  const tools = [...new Set(routes.map((route) => route.tool))].sort();
  return (
    <>
      <PageHeader title="Tasks" description="Live: the list refreshes itself. Newest first." />
      <Suspense>
        <TaskList options={{ tenants, tools }} />
      </Suspense>
    </>
  );
}
