import type { SqlHandle } from "@runifold/store";
import { z } from "zod";
import { NonRetryableError } from "../errors";
import type { ResolvedRetryPolicy } from "../policy/retry-policy";
import { type AnyWorkflow, defineWorkflow } from "../workflow";
import { type DeliveryToSend, markSkipped, pruneDeliveries, readDelivery, recordAttempt } from "./deliveries";
import { WEBHOOK_DELIVERY_WORKFLOW, WEBHOOK_TEST_EVENT, type WebhookPayload, webhookDeliveryWorkflowName } from "./events";
import { postWebhook } from "./post";
import { openWebhookSecret, webhookKeyTag } from "./secret";
import { signWebhook } from "./sign";
import { checkWebhookUrl, type HostLookup } from "./url-policy";

export type WebhookRetry = Omit<ResolvedRetryPolicy, "nonRetryable">;

/**
 * Eight attempts over about four hours: 5 s, 20 s, 80 s, 5 min, 21 min, 85 min, 2 h (±20 %), in
 * the spirit of Standard Webhooks' recommended schedule. Backoffs of a second or more park the run
 * (`sleeping`), so a receiver that is down for hours holds no worker slot.
 */
export const DEFAULT_WEBHOOK_RETRY: WebhookRetry = {
  maxAttempts: 8,
  initialBackoffMs: 5_000,
  backoffFactor: 4,
  maxBackoffMs: 2 * 3_600_000,
  jitter: 0.2,
};

export type WebhookDeliveryConfig = {
  /** The worker's pool: delivery rows are read and attempts recorded through it. */
  sql: SqlHandle;
  /** RUNIFOLD_WEBHOOK_KEY or NEXTAUTH_SECRET (secret.ts): a worker without it serves no deliveries. */
  keyMaterial: string;
  /** RUNIFOLD_PUBLIC_URL: the console links in payloads; without it payloads carry no link. */
  publicUrl?: string;
  /** RUNIFOLD_WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate: boolean;
  lookup?: HostLookup;
  retry?: Partial<WebhookRetry>;
  /** One attempt's limit, connection to last byte. Default 10 s. */
  timeoutMs?: number;
  /** Finished deliveries kept per subscription (older ones are deleted after each delivery). Default 100. */
  keepDeliveries?: number;
};

/** How many of a host's checked addresses one attempt tries before it counts as failed. */
const MAX_ADDRESSES_TRIED = 3;

type Outcome = { status: "delivered" | "skipped" | "gone"; statusCode?: number; attempts?: number };

/** 2xx delivers; 408, 429 and 5xx are worth another attempt; any other answer will not change. */
function retryableStatus(code: number): boolean {
  return code === 408 || code === 429 || code >= 500;
}

/** The body a receiver gets, the same bytes on every attempt (only the signature's timestamp changes). */
export function webhookPayload(delivery: DeliveryToSend, publicUrl: string | undefined): WebhookPayload {
  const payload: WebhookPayload = {
    id: delivery.id,
    type: delivery.event,
    timestamp: new Date(delivery.created_at).toISOString(),
    tenant: delivery.tenant_slug,
  };
  if (delivery.task_id && delivery.task) {
    const snapshot = delivery.task;
    const waiting = delivery.event === "task.input_required";
    const base = publicUrl?.replace(/\/+$/, "");
    payload.task = {
      taskId: delivery.task_id,
      tool: snapshot.tool ?? null,
      workflow: snapshot.workflow,
      status: snapshot.status,
      ...(snapshot.statusMessage ? { statusMessage: snapshot.statusMessage } : {}),
      ...(waiting && snapshot.inputRequests?.[0]
        ? { inputRequest: snapshot.inputRequests[0], inputRequests: snapshot.inputRequests }
        : {}),
      ...(snapshot.approval ? { approval: snapshot.approval } : {}),
      ...(base ? { link: `${base}/${waiting ? "inbox" : "tasks"}/${delivery.task_id}` } : {}),
    };
  }
  return payload;
}

/**
 * The built-in delivery workflows a worker holding `config.keyMaterial` serves (runifold-worker
 * unless --no-webhooks): the one named after its key's tag, and the plain one.
 *
 * Why the key is in the name: a worker that cannot open a subscription's secret must never claim
 * its deliveries (a team's worker started without the web's key used to claim them and fail every
 * one, for every tenant). A claim picks runs by `name@version` alone (ops/claim-runs.ts), so the
 * simplest sound rule that needs no change to claims is to make the name say which key the delivery
 * needs: the web seals each secret with its key's tag in the sealed value (secret.ts), the trigger
 * that creates a delivery's run names the workflow after that tag (migration 0039), and a worker
 * serves only the name of its own key's tag. A worker with another key, or none, never claims it;
 * the delivery stays queued (the stranded sweep says no worker serves it) until a worker with the
 * right key does. The plain name is for subscriptions sealed before tags: any worker with a key
 * serves them, as before, until a worker whose key opens the secret tags it (tag-legacy-secrets.ts).
 */
export function createWebhookDeliveryWorkflows(config: WebhookDeliveryConfig): AnyWorkflow[] {
  return [
    createWebhookDeliveryWorkflow(config, webhookDeliveryWorkflowName(webhookKeyTag(config.keyMaterial))),
    createWebhookDeliveryWorkflow(config, webhookDeliveryWorkflowName(undefined)),
  ];
}

/**
 * The built-in workflow `runifold-webhook-delivery[.<key tag>]@1`: one run per delivery row (created by the
 * migration's trigger). Its one step POSTs under the engine's retry policy — exponential backoff
 * with jitter, the count stored with the run — and records every attempt on the row; a 4xx other
 * than 408/429, a redirect, or a URL the SSRF rule refuses is final at once (NonRetryableError).
 * The row's URL, secret and the SSRF check are read again on every attempt, so a rotated secret or
 * a DNS change applies to retries.
 */
export function createWebhookDeliveryWorkflow(
  config: WebhookDeliveryConfig,
  name: string = webhookDeliveryWorkflowName(webhookKeyTag(config.keyMaterial)),
): AnyWorkflow {
  const retry: WebhookRetry = { ...DEFAULT_WEBHOOK_RETRY, ...config.retry };
  const timeoutMs = config.timeoutMs ?? 10_000;
  const { sql } = config;

  async function deliverOnce(deliveryId: string, execution: number, signal: AbortSignal): Promise<Outcome> {
    const delivery = await readDelivery(sql, deliveryId);
    if (!delivery) return { status: "gone" }; // the subscription (and with it the row) was deleted
    if (delivery.status === "delivered") return { status: "delivered" }; // a re-run after a crash
    if (!delivery.enabled && delivery.event !== WEBHOOK_TEST_EVENT) {
      await markSkipped(sql, deliveryId, "not sent: the subscription is disabled");
      return { status: "skipped" };
    }
    const started = performance.now();
    const finalAttempt = execution >= retry.maxAttempts;
    const fail = async (message: string, retryable: boolean, statusCode: number | null = null): Promise<never> => {
      const last = !retryable || finalAttempt;
      const durationMs = performance.now() - started;
      await recordAttempt(sql, deliveryId, { statusCode, error: message, durationMs, status: last ? "failed" : "retrying" });
      throw retryable ? new Error(message) : new NonRetryableError(message);
    };
    let secret: string;
    try {
      secret = openWebhookSecret(delivery.secret_sealed, config.keyMaterial, delivery.subscription_id);
    } catch (error) {
      return fail((error as Error).message, false);
    }
    const checked = await checkWebhookUrl(delivery.url, { allowPrivate: config.allowPrivate, lookup: config.lookup });
    if (!checked.ok) return fail(`refused: ${checked.reason}`, checked.transient === true);
    const body = JSON.stringify(webhookPayload(delivery, config.publicUrl));
    const headers = signWebhook(secret, delivery.id, body);
    let answer: Awaited<ReturnType<typeof postWebhook>> | undefined;
    let lastError: unknown;
    // A name with several checked addresses (IPv6 and IPv4) is tried address by address, as a
    // browser would: a receiver listening on one family only is still reached in this attempt.
    for (const address of checked.addresses.slice(0, MAX_ADDRESSES_TRIED)) {
      try {
        answer = await postWebhook(checked.url, address, body, headers, { timeoutMs, signal });
        break;
      } catch (error) {
        if (signal.aborted) throw error; // the attempt ended (cancel, lost lease): the engine decides
        lastError = error;
      }
    }
    if (!answer) return fail((lastError as Error).message, true);
    const code = answer.statusCode;
    if (code >= 200 && code < 300) {
      await recordAttempt(sql, deliveryId, {
        statusCode: code,
        error: null,
        durationMs: performance.now() - started,
        status: "delivered",
      });
      return { status: "delivered", statusCode: code, attempts: execution };
    }
    const what = code >= 300 && code < 400 ? `HTTP ${code} (redirects are not followed)` : `HTTP ${code}`;
    const detail = answer.body.trim() ? `${what}: ${answer.body.trim().slice(0, 200)}` : what;
    return fail(detail, retryableStatus(code), code);
  }

  return defineWorkflow({
    name,
    version: WEBHOOK_DELIVERY_WORKFLOW.version,
    title: "Webhook delivery (built-in)",
    description: "Delivers one signed webhook to a tenant's subscription, retrying with backoff (docs/webhooks.md).",
    input: z.object({ deliveryId: z.uuid() }),
    async run(ctx, input) {
      const outcome = await ctx.step("deliver", ({ attempt, signal }) => deliverOnce(input.deliveryId, attempt, signal), {
        retry: { ...retry, nonRetryable: [] },
      });
      if (outcome.status !== "gone") {
        await ctx.step("prune", async () => {
          const delivery = await readDelivery(sql, input.deliveryId);
          return delivery ? pruneDeliveries(sql, delivery.subscription_id, config.keepDeliveries ?? 100) : 0;
        });
      }
      const text = outcome.status === "delivered" ? `delivered (HTTP ${outcome.statusCode ?? "2xx"})` : outcome.status;
      return { content: [{ type: "text", text }], structuredContent: outcome };
    },
  });
}
