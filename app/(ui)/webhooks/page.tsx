import { pageOperator } from "@/lib/ui/page-operator";
import { presentWebhooksPage } from "@/lib/ui/presenters/webhooks";
import { AutoRefresh } from "../_components/auto-refresh";
import { Card, Empty, PageHeader } from "../_components/ui";
import { CreateWebhookForm } from "./create-form";
import { DeliveryLog } from "./delivery-log";
import { SubscriptionActions } from "./subscription-actions";

export const dynamic = "force-dynamic";

// Webhook subscriptions of the tenants the operator sees (admins: every tenant; members: theirs),
// each with its newest deliveries. Deliveries are runs of the built-in delivery workflow, so the
// log fills in as workers deliver; the page refreshes itself to show it.
export default async function WebhooksPage() {
  const { operator, ctx } = await pageOperator();
  const view = await presentWebhooksPage(ctx.sql, operator);
  return (
    <>
      <AutoRefresh seconds={5} />
      <PageHeader
        title="Webhooks"
        description="Signed POSTs to your endpoints when a task needs input, completes, fails or is cancelled (docs/webhooks.md)."
      />
      <div className="flex flex-col gap-4">
        {view.tenants.length > 0 && (
          <Card title="New subscription">
            <CreateWebhookForm tenants={view.tenants} events={[...view.events]} />
          </Card>
        )}
        {view.subscriptions.length === 0 ? (
          <Empty>No webhook subscriptions yet.</Empty>
        ) : (
          view.subscriptions.map((subscription) => (
            <section
              key={subscription.id}
              aria-label={`Webhook ${subscription.url}`}
              data-subscription-id={subscription.id}
              className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm"
            >
              <div className="mb-3 flex flex-wrap items-start justify-between gap-3">
                <div className="min-w-0">
                  <p className="break-all font-mono text-sm text-slate-900">{subscription.url}</p>
                  <p className="mt-1 text-xs text-slate-500">
                    {subscription.tenantSlug} · {subscription.events.join(", ")} ·{" "}
                    {subscription.enabled ? (
                      <span className="text-emerald-700">enabled</span>
                    ) : (
                      <span className="text-amber-700">disabled</span>
                    )}
                  </p>
                </div>
                <SubscriptionActions
                  tenantId={subscription.tenantId}
                  subscriptionId={subscription.id}
                  enabled={subscription.enabled}
                />
              </div>
              <DeliveryLog
                deliveries={subscription.deliveries}
                tenantId={subscription.tenantId}
                subscriptionId={subscription.id}
              />
            </section>
          ))
        )}
      </div>
    </>
  );
}
