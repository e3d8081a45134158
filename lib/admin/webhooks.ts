import { randomUUID } from "node:crypto";
import {
  checkWebhookUrl,
  generateWebhookSecret,
  type HostLookup,
  MAX_WEBHOOK_URL_LENGTH,
  sealWebhookSecret,
  WEBHOOK_EVENTS,
} from "@runifold/sdk";
import { z } from "zod";
import { findTenantById } from "../../db/queries/tenants";
import {
  deleteWebhookSubscription,
  findWebhookSubscription,
  insertTestDelivery,
  insertWebhookSubscription,
  requeueFailedDelivery,
  setWebhookEnabled,
  updateWebhookSecret,
  type WebhookSubscriptionRow,
} from "../../db/queries/webhooks";
import { AppError } from "../errors";
import { type AdminContext, actorLabel } from "./actor";
import { audit } from "./audit";
import { parseInput } from "./parse-input";
import { idRule } from "./rules";

/**
 * What the web process knows about webhooks (lib/server/webhook-policy.ts reads it from the env):
 * the key secrets are sealed with (RUNIFOLD_WEBHOOK_KEY or NEXTAUTH_SECRET, shared with the workers
 * that open them) and whether private addresses are allowed (RUNIFOLD_WEBHOOK_ALLOW_PRIVATE).
 */
export type WebhookPolicy = { keyMaterial: string | undefined; allowPrivate: boolean; lookup?: HostLookup };

const eventsRule = z
  .array(z.enum(WEBHOOK_EVENTS, `Events are ${WEBHOOK_EVENTS.join(", ")}`))
  .min(1, "Choose at least one event")
  .transform((events) => WEBHOOK_EVENTS.filter((event) => events.includes(event)));

export const ZCreateWebhook = z.object({
  tenantId: idRule,
  url: z.string().trim().min(1, "Required").max(MAX_WEBHOOK_URL_LENGTH, `At most ${MAX_WEBHOOK_URL_LENGTH} characters`),
  events: eventsRule,
});

export const ZWebhookRef = z.object({ tenantId: idRule, subscriptionId: idRule });
export const ZSetWebhookEnabled = ZWebhookRef.extend({ enabled: z.boolean() });
export const ZWebhookDeliveryRef = ZWebhookRef.extend({ deliveryId: idRule });

/** A subscription and its signing secret: the secret is returned here once and never shown again. */
export type CreatedWebhook = { subscription: WebhookSubscriptionRow; secret: string };

/** The URL's origin only: a query string may carry the receiver's own token, which the audit never stores. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "(invalid)";
  }
}

function keyOf(policy: WebhookPolicy): string {
  if (!policy.keyMaterial) {
    throw new AppError(
      "bad_request",
      "Webhooks need RUNIFOLD_WEBHOOK_KEY (or NEXTAUTH_SECRET) on the server to seal their secrets.",
    );
  }
  return policy.keyMaterial;
}

/**
 * Subscribes a tenant to task events. The URL passes the SSRF rule now (https, every resolved
 * address public) and again before every delivery attempt, since DNS can change in between.
 */
export async function createWebhook(
  ctx: AdminContext,
  input: z.input<typeof ZCreateWebhook>,
  policy: WebhookPolicy,
): Promise<CreatedWebhook> {
  const params = parseInput(ZCreateWebhook, input);
  if (!(await findTenantById(ctx.sql, params.tenantId))) throw new AppError("not_found");
  const material = keyOf(policy);
  const checked = await checkWebhookUrl(params.url, { allowPrivate: policy.allowPrivate, lookup: policy.lookup });
  if (!checked.ok) throw new AppError("bad_request", `url: ${checked.reason}.`);
  const id = randomUUID();
  const secret = generateWebhookSecret();
  const subscription = await insertWebhookSubscription(ctx.sql, {
    id,
    tenantId: params.tenantId,
    url: checked.url.toString(),
    events: params.events,
    secretSealed: sealWebhookSecret(secret, material, id),
    createdBy: actorLabel(ctx.actor),
  });
  await audit(ctx, "webhook.create", {
    tenantId: params.tenantId,
    subscriptionId: id,
    origin: originOf(subscription.url),
    events: params.events.join(","),
  });
  return { subscription, secret };
}

async function requireSubscription(ctx: AdminContext, input: z.output<typeof ZWebhookRef>): Promise<WebhookSubscriptionRow> {
  const found = await findWebhookSubscription(ctx.sql, { id: input.subscriptionId, tenantId: input.tenantId });
  if (!found) throw new AppError("not_found", "No such webhook subscription.");
  return found;
}

/** Deletes the subscription and its delivery log; deliveries still retrying end without sending. */
export async function deleteWebhook(ctx: AdminContext, input: z.input<typeof ZWebhookRef>): Promise<void> {
  const params = parseInput(ZWebhookRef, input);
  if (!(await deleteWebhookSubscription(ctx.sql, { id: params.subscriptionId, tenantId: params.tenantId }))) {
    throw new AppError("not_found", "No such webhook subscription.");
  }
  await audit(ctx, "webhook.delete", { tenantId: params.tenantId, subscriptionId: params.subscriptionId });
}

/** A new secret, returned once; retries of earlier deliveries are signed with it too. */
export async function rotateWebhookSecret(
  ctx: AdminContext,
  input: z.input<typeof ZWebhookRef>,
  policy: WebhookPolicy,
): Promise<{ secret: string }> {
  const params = parseInput(ZWebhookRef, input);
  const material = keyOf(policy);
  const secret = generateWebhookSecret();
  const sealed = sealWebhookSecret(secret, material, params.subscriptionId);
  if (!(await updateWebhookSecret(ctx.sql, { id: params.subscriptionId, tenantId: params.tenantId, secretSealed: sealed }))) {
    throw new AppError("not_found", "No such webhook subscription.");
  }
  await audit(ctx, "webhook.rotate_secret", { tenantId: params.tenantId, subscriptionId: params.subscriptionId });
  return { secret };
}

/** A disabled subscription gets no events (a delivery already queued is not sent); "Send test" still works. */
export async function setWebhookEnabledState(ctx: AdminContext, input: z.input<typeof ZSetWebhookEnabled>): Promise<void> {
  const params = parseInput(ZSetWebhookEnabled, input);
  const changed = await setWebhookEnabled(ctx.sql, {
    id: params.subscriptionId,
    tenantId: params.tenantId,
    enabled: params.enabled,
  });
  if (!changed) throw new AppError("not_found", "No such webhook subscription.");
  await audit(ctx, params.enabled ? "webhook.enable" : "webhook.disable", {
    tenantId: params.tenantId,
    subscriptionId: params.subscriptionId,
  });
}

/** Queues a `webhook.test` delivery: a run of the built-in delivery workflow, like any event. */
export async function sendWebhookTest(
  ctx: AdminContext,
  input: z.input<typeof ZWebhookRef>,
): Promise<{ deliveryId: string; runId: string }> {
  const params = parseInput(ZWebhookRef, input);
  await requireSubscription(ctx, params);
  const delivery = await insertTestDelivery(ctx.sql, { subscriptionId: params.subscriptionId, tenantId: params.tenantId });
  if (!delivery) throw new AppError("not_found", "No such webhook subscription.");
  await audit(ctx, "webhook.test", {
    tenantId: params.tenantId,
    subscriptionId: params.subscriptionId,
    deliveryId: delivery.id,
  });
  return { deliveryId: delivery.id, runId: delivery.run_id };
}

/**
 * Resends a failed delivery of the subscription (db/queries/webhooks.ts requeueFailedDelivery: the
 * same delivery id, so the same `webhook-id`, with a new run). A delivery that is not failed — still
 * retrying, delivered, already resent, pruned — or another tenant's is refused without a change.
 */
export async function resendWebhookDelivery(
  ctx: AdminContext,
  input: z.input<typeof ZWebhookDeliveryRef>,
): Promise<{ deliveryId: string; runId: string }> {
  const params = parseInput(ZWebhookDeliveryRef, input);
  await requireSubscription(ctx, params);
  const requeued = await requeueFailedDelivery(ctx.sql, {
    id: params.deliveryId,
    subscriptionId: params.subscriptionId,
    tenantId: params.tenantId,
  });
  if (!requeued) throw new AppError("conflict", "Only a failed delivery can be resent (this one is not failed, or is gone).");
  await audit(ctx, "webhook.resend", {
    tenantId: params.tenantId,
    subscriptionId: params.subscriptionId,
    deliveryId: requeued.id,
    runId: requeued.run_id,
  });
  return { deliveryId: requeued.id, runId: requeued.run_id };
}
