import type { WebhookPolicy } from "../admin";
import { readEnv } from "../env";

/**
 * The web process's webhook policy (docs/webhooks.md): secrets are sealed with RUNIFOLD_WEBHOOK_KEY
 * or, when unset, NEXTAUTH_SECRET (the workers open them with the same key), and subscription URLs
 * must be https to public addresses unless RUNIFOLD_WEBHOOK_ALLOW_PRIVATE=true.
 */
export function webWebhookPolicy(): WebhookPolicy {
  const env = readEnv();
  return {
    keyMaterial: env.RUNIFOLD_WEBHOOK_KEY ?? env.NEXTAUTH_SECRET,
    allowPrivate: env.RUNIFOLD_WEBHOOK_ALLOW_PRIVATE === "true",
  };
}
