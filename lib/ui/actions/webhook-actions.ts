import "server-only";
import {
  createWebhook,
  deleteWebhook,
  resendWebhookDelivery,
  rotateWebhookSecret,
  sendWebhookTest,
  setWebhookEnabledState,
  type WebhookPolicy,
  ZCreateWebhook,
  ZSetWebhookEnabled,
  ZWebhookDeliveryRef,
  ZWebhookRef,
} from "../../admin";
import { operatorAction } from "./operator-action";

// Webhook subscriptions of a tenant the operator sees (admins: any tenant; members: their own). The
// tenant is in every statement's WHERE (db/queries/webhooks.ts), so another tenant's subscription id
// is "not found". Creating and rotating return the secret once; it is never shown again.

export function createWebhookAction(policy: WebhookPolicy) {
  return operatorAction(ZCreateWebhook, (ctx, input) => createWebhook(ctx, input, policy), { tenantScoped: true });
}

export function rotateWebhookSecretAction(policy: WebhookPolicy) {
  return operatorAction(ZWebhookRef, (ctx, input) => rotateWebhookSecret(ctx, input, policy), { tenantScoped: true });
}

export const deleteWebhookAction = operatorAction(ZWebhookRef, deleteWebhook, { tenantScoped: true });
export const setWebhookEnabledAction = operatorAction(ZSetWebhookEnabled, setWebhookEnabledState, { tenantScoped: true });
export const sendWebhookTestAction = operatorAction(ZWebhookRef, sendWebhookTest, { tenantScoped: true });
export const resendWebhookDeliveryAction = operatorAction(ZWebhookDeliveryRef, resendWebhookDelivery, { tenantScoped: true });
