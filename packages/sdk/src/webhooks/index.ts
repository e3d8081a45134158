// The SDK's webhooks (docs/webhooks.md): the built-in delivery workflow the worker serves, and the
// pieces the app shares with it — event names, the SSRF rule, secret sealing and signing.

export { isLoopbackAddress, isPublicAddress } from "./address-ranges";
export type { AttemptRecord, DeliveryToSend } from "./deliveries";
export type { WebhookDeliveryConfig, WebhookRetry } from "./delivery-workflow";
export {
  createWebhookDeliveryWorkflow,
  createWebhookDeliveryWorkflows,
  DEFAULT_WEBHOOK_RETRY,
  webhookPayload,
} from "./delivery-workflow";
export type { WebhookEvent, WebhookPayload, WebhookTaskSnapshot } from "./events";
export {
  isWebhookEvent,
  WEBHOOK_DELIVERY_WORKFLOW,
  WEBHOOK_EVENTS,
  WEBHOOK_TEST_EVENT,
  webhookDeliveryWorkflowName,
} from "./events";
export {
  generateWebhookSecret,
  openWebhookSecret,
  sealedKeyTag,
  sealWebhookSecret,
  webhookKeyMaterial,
  webhookKeyTag,
} from "./secret";
export type { SignedHeaders } from "./sign";
export { signWebhook } from "./sign";
export type { CheckedWebhookUrl, HostLookup, WebhookUrlPolicy } from "./url-policy";
export { checkWebhookUrl, MAX_WEBHOOK_URL_LENGTH } from "./url-policy";
export type { WorkerWebhooks } from "./worker-config";
export { readWorkerWebhooks } from "./worker-config";
