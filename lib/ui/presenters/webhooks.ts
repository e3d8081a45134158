import "server-only";
import { WEBHOOK_EVENTS } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import { listRecentDeliveries, listWebhookSubscriptions } from "../../../db/queries/webhooks";
import type { Operator } from "../../auth";
import { listVisibleTenants } from "./tenants";

/** Deliveries shown per subscription (the store keeps the newest 100 finished ones). */
export const DELIVERY_LOG_SIZE = 10;

export type DeliveryItem = {
  id: string;
  event: string;
  taskId: string | null;
  runId: string | null;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  lastAttemptAt: string | null;
  /** Each attempt, oldest first: when, the HTTP status (or none: no answer), the error. */
  attemptLog: { at: string; statusCode: number | null; error: string | null }[];
};

export type SubscriptionItem = {
  id: string;
  tenantId: string;
  tenantSlug: string;
  url: string;
  events: string[];
  enabled: boolean;
  createdAt: string;
  secretRotatedAt: string | null;
  deliveries: DeliveryItem[];
};

export type WebhooksView = {
  tenants: { id: string; slug: string }[];
  events: readonly string[];
  subscriptions: SubscriptionItem[];
};

const iso = (value: Date | string | null) => (value ? new Date(value).toISOString() : null);

/**
 * The Webhooks page: the subscriptions of the tenants the operator sees (admins: all) with each
 * one's newest deliveries. Never the secret: it is shown once, when created or rotated.
 */
export async function presentWebhooksPage(sql: SqlHandle, operator: Operator): Promise<WebhooksView> {
  const tenants = (await listVisibleTenants(sql, operator)).map((t) => ({ id: t.id, slug: t.slug }));
  const rows = await listWebhookSubscriptions(sql, operator.tenantIds);
  const deliveries = await listRecentDeliveries(
    sql,
    rows.map((row) => row.id),
    DELIVERY_LOG_SIZE,
  );
  return {
    tenants,
    events: WEBHOOK_EVENTS,
    subscriptions: rows.map((row) => ({
      id: row.id,
      tenantId: row.tenant_id,
      tenantSlug: row.tenant_slug,
      url: row.url,
      events: row.events,
      enabled: row.enabled,
      createdAt: iso(row.created_at) as string,
      secretRotatedAt: iso(row.secret_rotated_at),
      deliveries: deliveries
        .filter((d) => d.subscription_id === row.id)
        .map((d) => ({
          id: d.id,
          event: d.event,
          taskId: d.task_id,
          runId: d.run_id,
          status: d.status,
          attempts: d.attempts,
          lastStatusCode: d.last_status_code,
          lastError: d.last_error,
          createdAt: iso(d.created_at) as string,
          lastAttemptAt: iso(d.last_attempt_at),
          attemptLog: d.attempt_log.map((entry) => ({
            at: iso(entry.at) as string,
            statusCode: entry.statusCode ?? null,
            error: entry.error ?? null,
          })),
        })),
    })),
  };
}
