import { describe, expect, it } from "vitest";
import type { Logger } from "../logger";
import { readWorkerWebhooks } from "./worker-config";

/** A logger that keeps what it was told. */
function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (message: string) => {
    lines.push(message);
  };
  return { lines, debug: keep, info: keep, warn: keep, error: keep };
}

describe("readWorkerWebhooks", () => {
  it("serves no deliveries without a key, and says so", () => {
    const logger = recordingLogger();
    expect(readWorkerWebhooks({}, logger)).toBe(false);
    expect(readWorkerWebhooks({ RUNIFOLD_WEBHOOK_KEY: "", NEXTAUTH_SECRET: "" }, logger)).toBe(false);
    expect(logger.lines.join("\n")).toMatch(/delivers no webhooks/);
  });

  it("serves none with a NEXTAUTH_SECRET too short to seal with", () => {
    expect(readWorkerWebhooks({ NEXTAUTH_SECRET: "short" }, recordingLogger())).toBe(false);
  });

  it("delivers with RUNIFOLD_WEBHOOK_KEY, else NEXTAUTH_SECRET, unless turned off", () => {
    const key = "web-key-0123456789abcdef";
    expect(readWorkerWebhooks({ NEXTAUTH_SECRET: key }, recordingLogger())).toMatchObject({ keyMaterial: key });
    expect(
      readWorkerWebhooks({ NEXTAUTH_SECRET: "other-0123456789abcdef", RUNIFOLD_WEBHOOK_KEY: key }, recordingLogger()),
    ).toMatchObject({ keyMaterial: key, allowPrivate: false });
    expect(readWorkerWebhooks({ RUNIFOLD_WEBHOOK_KEY: key, RUNIFOLD_WEBHOOKS: "off" }, recordingLogger())).toBe(false);
    expect(() => readWorkerWebhooks({ RUNIFOLD_WEBHOOK_KEY: "short" }, recordingLogger())).toThrow(/RUNIFOLD_WEBHOOK_KEY/);
  });
});
