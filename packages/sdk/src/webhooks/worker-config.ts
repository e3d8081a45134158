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
 * Without a key a worker delivers nothing (a team's worker started with DATABASE_URL alone must not
 * claim deliveries it cannot sign); with another key than the web's it claims none of the web's
 * deliveries either (delivery-workflow.ts, createWebhookDeliveryWorkflows).
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
  if (!keyMaterial) {
    logger.info(
      "webhooks: no RUNIFOLD_WEBHOOK_KEY or NEXTAUTH_SECRET; this worker delivers no webhooks (workers with the web's key do)",
    );
    return false;
  }
  if (keyMaterial.length < 16) {
    // RUNIFOLD_WEBHOOK_KEY's length is checked above; a short NEXTAUTH_SECRET seals nothing on the web either.
    logger.warn("webhooks: NEXTAUTH_SECRET is shorter than 16 characters; this worker delivers no webhooks");
    return false;
  }
  if (!values.RUNIFOLD_PUBLIC_URL) logger.warn("webhooks: RUNIFOLD_PUBLIC_URL is not set; payloads carry no console link");
  return {
    keyMaterial,
    publicUrl: values.RUNIFOLD_PUBLIC_URL,
    allowPrivate: values.RUNIFOLD_WEBHOOK_ALLOW_PRIVATE === "true",
  };
}
