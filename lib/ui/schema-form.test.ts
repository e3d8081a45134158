import { describe, expect, it } from "vitest";
import { fieldsFromSchema, initialValues, validateForm } from "./schema-form";

const schema = {
  type: "object",
  properties: {
    decision: {
      type: "string",
      title: "Decision",
      enum: ["approve", "reject"],
      enumNames: ["Approve", "Reject"],
      default: "approve",
    },
    comment: { type: "string", title: "Comment", maxLength: 5 },
    email: { type: "string", format: "email" },
    site: { type: "string", format: "uri", minLength: 10 },
    when: { type: "string", format: "date" },
    count: { type: "integer", minimum: 1, maximum: 3, default: 2 },
    ratio: { type: "number", maximum: 1 },
    urgent: { type: "boolean", default: true },
    level: {
      type: "string",
      oneOf: [
        { const: "lo", title: "Low" },
        { const: "hi", title: "High" },
      ],
    },
    tags: {
      type: "array",
      items: {
        anyOf: [
          { const: "a", title: "Alpha" },
          { const: "b", title: "Beta" },
        ],
      },
      maxItems: 1,
    },
    colors: { type: "array", items: { type: "string", enum: ["red", "blue"] }, default: ["red"] },
  },
  required: ["decision", "count", "tags"],
};

describe("fieldsFromSchema", () => {
  const fields = fieldsFromSchema(schema);
  const byKey = Object.fromEntries(fields.map((field) => [field.key, field]));

  it("maps every supported property kind with labels, bounds and required markers", () => {
    expect(byKey.decision).toMatchObject({
      kind: "enum",
      label: "Decision",
      required: true,
      options: [
        { value: "approve", label: "Approve" },
        { value: "reject", label: "Reject" },
      ],
    });
    expect(byKey.level).toMatchObject({
      kind: "enum",
      options: [
        { value: "lo", label: "Low" },
        { value: "hi", label: "High" },
      ],
    });
    expect(byKey.count).toMatchObject({ kind: "number", integer: true, minimum: 1, maximum: 3, required: true });
    expect(byKey.urgent).toMatchObject({ kind: "boolean", default: true });
    expect(byKey.tags).toMatchObject({
      kind: "multi",
      options: [
        { value: "a", label: "Alpha" },
        { value: "b", label: "Beta" },
      ],
      maxItems: 1,
    });
    expect(byKey.colors).toMatchObject({
      kind: "multi",
      options: [
        { value: "red", label: "red" },
        { value: "blue", label: "blue" },
      ],
    });
    expect(byKey.email).toMatchObject({ kind: "string", format: "email", required: false, label: "email" });
  });

  it("starts from the defaults", () => {
    expect(initialValues(fields)).toMatchObject({
      decision: "approve",
      count: "2",
      urgent: true,
      colors: ["red"],
      comment: "",
      tags: [],
    });
  });

  it("ignores a schema without properties", () => {
    expect(fieldsFromSchema({ type: "object" })).toEqual([]);
    expect(fieldsFromSchema(null)).toEqual([]);
  });
});

describe("validateForm", () => {
  const fields = fieldsFromSchema(schema);
  const valid = { ...initialValues(fields), tags: ["a"] };

  it("returns typed content and omits empty optional fields", () => {
    const { content, errors } = validateForm(fields, { ...valid, ratio: "0.5" });
    expect(errors).toEqual({});
    expect(content).toEqual({ decision: "approve", count: 2, ratio: 0.5, urgent: true, tags: ["a"], colors: ["red"] });
  });

  it("reports each rule inline, per field", () => {
    const { errors } = validateForm(fields, {
      decision: "maybe",
      comment: "too long",
      email: "nope",
      site: "http://x",
      when: "2026-13-45",
      count: "2.5",
      ratio: "2",
      level: "mid",
      tags: ["a", "b"],
    });
    expect(errors).toEqual({
      decision: "Choose from the listed options",
      comment: "At most 5 characters",
      email: "Enter an email address",
      site: "At least 10 characters",
      when: "Enter a date as YYYY-MM-DD",
      count: "Enter a whole number",
      ratio: "Must be at most 1",
      level: "Choose from the listed options",
      tags: "Choose at most 1",
    });
  });

  it("requires required fields and checks ranges and URLs", () => {
    expect(validateForm(fields, {}).errors).toMatchObject({
      decision: "Required",
      count: "Required",
      tags: "Choose at least one",
    });
    expect(validateForm(fields, { ...valid, count: "0" }).errors.count).toBe("Must be at least 1");
    expect(validateForm(fields, { ...valid, site: "not a url at all" }).errors.site).toBe("Enter a full URL (https://…)");
    expect(validateForm(fields, { ...valid, tags: ["zzz"] }).errors.tags).toBe("Choose from the listed options");
  });
});
