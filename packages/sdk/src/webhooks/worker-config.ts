import { z } from "zod";
import type { Logger } from "../logger";
import type { WebhookDeliveryConfig } from "./delivery-workflow";
import { webhookKeyMaterial } from "./secret";

const WebhookEnv = z.object({
  /** `off`: this worker does not serve the built-in delivery workflow (`--no-webhooks` sets it). */
  RUNIFOLD_WEBHOOKS: z.enum(["on", "off"]).default("on"),
  RUNIFOLD_WEBHOOK_ALLOW_PRIVATE: z.enum(["true", "false"]).default("false"),
  RUNIFOLD_WEBHOOK_KEY: z.string().min(16, "must be at least 16 characters").optional(),
  RUNIFOLD_PUBLIC_URL: z.url("must be a URL").optional(),
});

export type WorkerWebhooks = Omit<WebhookDeliveryConfig, "sql"> | false;

/**
 * Whether (and how) a runifold-worker delivers webhooks, from its environment. On by default: a
 * deployment's workers deliver its tenants' webhooks without extra setup, as long as they share the
 * web's RUNIFOLD_WEBHOOK_KEY (or NEXTAUTH_SECRET) and know RUNIFOLD_PUBLIC_URL for the links.
 * A bad value throws, naming the variable (the worker exits 3 like any configuration error).
 */
export function readWorkerWebhooks(env: Record<string, string | undefined>, logger: Logger): WorkerWebhooks {
  const blanksRemoved = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const parsed = WebhookEnv.safeParse(blanksRemoved);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${issue?.path.join(".") ?? "environment"}: ${issue?.message ?? "invalid"}`);
  }
  const values = parsed.data;
  if (values.RUNIFOLD_WEBHOOKS === "off") return false;
  const keyMaterial = webhookKeyMaterial(env);
  if (!keyMaterial) logger.warn("webhooks: no RUNIFOLD_WEBHOOK_KEY or NEXTAUTH_SECRET; deliveries will fail until one is set");
  if (!values.RUNIFOLD_PUBLIC_URL) logger.warn("webhooks: RUNIFOLD_PUBLIC_URL is not set; payloads carry no console link");
  return {
    keyMaterial,
    publicUrl: values.RUNIFOLD_PUBLIC_URL,
    allowPrivate: values.RUNIFOLD_WEBHOOK_ALLOW_PRIVATE === "true",
  };
}
