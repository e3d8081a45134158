import { Webhook } from "standardwebhooks";

export type SignedHeaders = { "webhook-id": string; "webhook-timestamp": string; "webhook-signature": string };

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): `webhook-signature` is
 * `v1,` + base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)), the key being the bytes of the
 * `whsec_` secret. Signed by the reference library, so any Standard Webhooks verifier accepts it.
 */
export function signWebhook(secret: string, id: string, body: string, at: Date = new Date()): SignedHeaders {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": new Webhook(secret).sign(id, new Date(timestamp * 1000), body),
  };
}
