import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { webhookPayload } from "./delivery-workflow";
import {
  generateWebhookSecret,
  openWebhookSecret,
  sealedKeyTag,
  sealWebhookSecret,
  webhookKeyMaterial,
  webhookKeyTag,
} from "./secret";
import { signWebhook } from "./sign";
import { checkWebhookUrl } from "./url-policy";

const STRICT = { allowPrivate: false };
const SUB = "6f1f2a4e-0000-4000-8000-000000000001";

describe("checkWebhookUrl", () => {
  it("refuses a name when any of its addresses is private (one good answer is not enough)", async () => {
    const lookup = async () => [{ address: "93.184.215.14" }, { address: "10.1.2.3" }];
    expect(await checkWebhookUrl("https://hooks.example.com/x", { ...STRICT, lookup })).toMatchObject({
      ok: false,
      reason: expect.stringContaining("(10.1.2.3)"),
    });
  });

  it("accepts public answers and returns them for the connection", async () => {
    const lookup = async () => [{ address: "2606:2800:21f:cb07:6820:80da:af6b:8b2c" }];
    expect(await checkWebhookUrl("https://hooks.example.com/x", { ...STRICT, lookup })).toMatchObject({
      ok: true,
      addresses: ["2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
    });
  });

  it("marks a DNS failure as transient (a delivery retries it), a refusal as final", async () => {
    const lookup = async () => {
      throw Object.assign(new Error("no"), { code: "ENOTFOUND" });
    };
    expect(await checkWebhookUrl("https://nowhere.example/x", { ...STRICT, lookup })).toMatchObject({
      ok: false,
      transient: true,
    });
    expect(await checkWebhookUrl("https://100.64.0.1/x", STRICT)).toEqual({
      ok: false,
      reason: expect.stringContaining("100.64.0.1"),
    });
  });

  it("allows http and private addresses only with the flag", async () => {
    expect((await checkWebhookUrl("http://10.0.0.1:8080/x", STRICT)).ok).toBe(false);
    expect((await checkWebhookUrl("http://10.0.0.1:8080/x", { allowPrivate: true })).ok).toBe(true);
  });
});

describe("secrets", () => {
  it("seal and open with the same key and subscription only", () => {
    const secret = generateWebhookSecret();
    const sealed = sealWebhookSecret(secret, "key-material-0123456789", SUB);
    expect(sealed).not.toContain(secret.slice(6));
    expect(openWebhookSecret(sealed, "key-material-0123456789", SUB)).toBe(secret);
    expect(() => openWebhookSecret(sealed, "another-key-0123456789", SUB)).toThrow(/does not open with this worker's key/);
    expect(() => openWebhookSecret(sealed, "key-material-0123456789", SUB.replace("1", "2"))).toThrow(/does not open/);
  });

  it("name the tag of the key they were sealed under; values sealed before tags still open", () => {
    const tag = webhookKeyTag("key-material-0123456789");
    expect(tag).toMatch(/^[0-9a-f]{16}$/);
    expect(webhookKeyTag("another-key-0123456789")).not.toBe(tag);
    const sealed = sealWebhookSecret("whsec_x", "key-material-0123456789", SUB);
    expect(sealed.startsWith(`v2.${tag}.`)).toBe(true);
    expect(sealedKeyTag(sealed)).toBe(tag);
    const untagged = `v1.${sealed.split(".")[2]}`;
    expect(sealedKeyTag(untagged)).toBeUndefined();
    expect(openWebhookSecret(untagged, "key-material-0123456789", SUB)).toBe("whsec_x");
    expect(() => openWebhookSecret(`v3.${tag}.${sealed.split(".")[2]}`, "key-material-0123456789", SUB)).toThrow(
      /unknown format/,
    );
  });

  it("takes RUNIFOLD_WEBHOOK_KEY over NEXTAUTH_SECRET", () => {
    expect(webhookKeyMaterial({ NEXTAUTH_SECRET: "a", RUNIFOLD_WEBHOOK_KEY: "b" })).toBe("b");
    expect(webhookKeyMaterial({ NEXTAUTH_SECRET: "a", RUNIFOLD_WEBHOOK_KEY: "" })).toBe("a");
    expect(webhookKeyMaterial({})).toBeUndefined();
  });
});

describe("signWebhook", () => {
  it("is v1,base64(HMAC-SHA256(secret bytes, id.timestamp.body))", () => {
    const secret = `whsec_${Buffer.from("0123456789abcdef0123456789abcdef").toString("base64")}`;
    const headers = signWebhook(secret, "msg_1", '{"a":1}', new Date(1_700_000_000_999));
    const expected = createHmac("sha256", "0123456789abcdef0123456789abcdef").update('msg_1.1700000000.{"a":1}').digest("base64");
    expect(headers).toEqual({ "webhook-id": "msg_1", "webhook-timestamp": "1700000000", "webhook-signature": `v1,${expected}` });
  });
});

describe("webhookPayload", () => {
  const base = {
    id: "d1",
    task_id: "t1",
    created_at: new Date("2026-01-02T03:04:05.000Z"),
    status: "pending",
    subscription_id: SUB,
    url: "https://x",
    secret_sealed: "v1.x",
    enabled: true,
    tenant_slug: "acme",
  };
  it("links input_required to the inbox form and other events to the task page", () => {
    const asking = webhookPayload(
      {
        ...base,
        event: "task.input_required",
        task: { status: "input_required", tool: "approve", inputRequests: [{ key: "k", message: "m", requestedSchema: {} }] },
      },
      "https://console.example/",
    );
    expect(asking).toEqual({
      id: "d1",
      type: "task.input_required",
      timestamp: "2026-01-02T03:04:05.000Z",
      tenant: "acme",
      task: {
        taskId: "t1",
        tool: "approve",
        status: "input_required",
        inputRequest: { key: "k", message: "m", requestedSchema: {} },
        inputRequests: [{ key: "k", message: "m", requestedSchema: {} }],
        link: "https://console.example/inbox/t1",
      },
    });
    const done = webhookPayload({ ...base, event: "task.completed", task: { status: "completed" } }, "https://console.example");
    expect(done.task).toEqual({ taskId: "t1", tool: null, status: "completed", link: "https://console.example/tasks/t1" });
    expect(
      webhookPayload({ ...base, event: "task.completed", task: { status: "completed" } }, undefined).task?.link,
    ).toBeUndefined();
  });
});
