import { describe, expect, it } from "vitest";
import { scheduleInputFields, scheduleInputFromForm, scheduleInputValues } from "./schedule-input";

const deploy = {
  type: "object",
  properties: {
    service: { type: "string", default: "web" },
    release: { type: "string", title: "Release" },
    replicas: { type: "integer", minimum: 1 },
    canary: { type: "boolean" },
    regions: { type: "array", items: { enum: ["eu", "us"] } },
  },
  required: ["release"],
};

describe("schedule input in the console", () => {
  it("gives a flat schema one control per property, required first", () => {
    expect(scheduleInputFields(deploy)?.map((field) => [field.key, field.kind])).toEqual([
      ["release", "string"],
      ["service", "string"],
      ["replicas", "number"],
      ["canary", "boolean"],
      ["regions", "multi"],
    ]);
  });

  it("edits nested or free-form schemas as JSON", () => {
    expect(scheduleInputFields({ type: "object", properties: { target: { type: "object" } } })).toBeNull();
    expect(
      scheduleInputFields({ type: "object", properties: { tags: { type: "array", items: { type: "string" } } } }),
    ).toBeNull();
    expect(scheduleInputFields({ type: "object", properties: {} })).toBeNull();
    expect(scheduleInputFields(undefined)).toBeNull();
  });

  it("starts from the schedule's current input, else the schema's defaults", () => {
    const fields = scheduleInputFields(deploy) ?? [];
    expect(scheduleInputValues(fields, undefined)).toEqual({
      release: "",
      service: "web",
      replicas: "",
      canary: false,
      regions: [],
    });
    expect(scheduleInputValues(fields, { release: "v2", replicas: 3, canary: true, regions: ["eu"] })).toMatchObject({
      release: "v2",
      replicas: "3",
      canary: true,
      regions: ["eu"],
    });
  });

  it("types the posted values by the schema, or names every field at fault", () => {
    expect(
      scheduleInputFromForm(deploy, { release: "v1.0.0", service: "api", replicas: "2", canary: "true", regions: ["us"] }),
    ).toEqual({
      ok: true,
      input: { release: "v1.0.0", service: "api", replicas: 2, canary: true, regions: ["us"] },
    });
    expect(scheduleInputFromForm(deploy, { release: "", replicas: "0" })).toEqual({
      ok: false,
      message: "Release: Required; replicas: Must be at least 1",
    });
  });
});
