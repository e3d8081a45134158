import { describe, expect, it } from "vitest";
import { tracingRequested } from "./tracing";

describe("tracingRequested: the standard OTEL_* environment decides", () => {
  it("is off when nothing asks for traces", () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_SERVICE_NAME: "x" })).toBe(false);
  });

  it("is on for an OTLP endpoint or a named exporter", () => {
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: "console" })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: "otlp,console" })).toBe(true);
  });

  it("OTEL_TRACES_EXPORTER=none and OTEL_SDK_DISABLED=true win over an endpoint", () => {
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "TRUE" })).toBe(false);
  });
});
