import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type AnyWorkflow, defineWorkflow } from "../workflow";
import { canonicalJson, describeDefinition, toolSchemaOf } from "./describe";

function workflow(input: z.ZodType, extra: Partial<AnyWorkflow> = {}): AnyWorkflow {
  return defineWorkflow({
    name: "describe-me",
    version: 1,
    input,
    async run() {
      return { content: [] };
    },
    ...extra,
  });
}

describe("canonicalJson", () => {
  it("is independent of key order at every depth", () => {
    const a = { b: 1, a: { d: [1, { y: 2, x: 1 }], c: "c" } };
    const b = { a: { c: "c", d: [1, { x: 1, y: 2 }] }, b: 1 };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"a":{"c":"c","d":[1,{"x":1,"y":2}]},"b":1}');
  });

  it("keeps array order (an enum's or a tuple's order means something)", () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it("drops undefined members as JSON does, and writes null for a missing value", () => {
    expect(canonicalJson({ a: undefined, b: null })).toBe('{"b":null}');
    expect(canonicalJson(undefined)).toBe("null");
  });
});

describe("describeDefinition", () => {
  it("publishes the input's JSON Schema: defaulted and optional zod fields are not required", () => {
    const described = describeDefinition(
      workflow(z.object({ text: z.string(), times: z.number().int().default(1), note: z.string().optional() })),
    );
    expect(described.inputSchema).toMatchObject({
      type: "object",
      properties: { text: { type: "string" }, times: { type: "integer", default: 1 }, note: { type: "string" } },
      required: ["text"],
    });
    expect(described.inputSchema).not.toHaveProperty("$schema");
  });

  it("carries title, description, output schema and preflight, with defaults when absent", () => {
    const preflight = {
      ok: {
        method: "elicitation/create" as const,
        params: { message: "OK?", requestedSchema: { type: "object" as const, properties: { ok: { type: "boolean" } } } },
      },
    };
    const full = describeDefinition(
      workflow(z.object({}), { title: "T", description: "D", output: z.object({ n: z.number() }), preflight }),
    );
    expect(full).toMatchObject({ name: "describe-me", version: 1, title: "T", description: "D", preflight });
    expect(full.outputSchema).toMatchObject({ type: "object", properties: { n: { type: "number" } }, required: ["n"] });
    const bare = describeDefinition(workflow(z.object({})));
    expect(bare).toMatchObject({ title: null, description: "", outputSchema: null, preflight: {} });
  });

  it("gives equal definitions equal fingerprints (a sha256 in hex)", () => {
    const one = describeDefinition(workflow(z.object({ a: z.string() })));
    const two = describeDefinition(workflow(z.object({ a: z.string() })));
    expect(one.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(two.fingerprint).toBe(one.fingerprint);
  });

  it("changes the fingerprint when the input schema changes", () => {
    const base = describeDefinition(workflow(z.object({ a: z.string() }))).fingerprint;
    expect(describeDefinition(workflow(z.object({ a: z.number() }))).fingerprint).not.toBe(base);
    expect(describeDefinition(workflow(z.object({ a: z.string(), b: z.string() }))).fingerprint).not.toBe(base);
    expect(describeDefinition(workflow(z.object({ a: z.string().optional() }))).fingerprint).not.toBe(base);
    expect(describeDefinition(workflow(z.object({ a: z.string().default("x") }))).fingerprint).not.toBe(base);
  });

  it("changes the fingerprint when anything else published changes", () => {
    const base = describeDefinition(workflow(z.object({}))).fingerprint;
    expect(describeDefinition(workflow(z.object({}), { description: "now described" })).fingerprint).not.toBe(base);
    expect(describeDefinition(workflow(z.object({}), { title: "Titled" })).fingerprint).not.toBe(base);
    expect(describeDefinition(workflow(z.object({}), { output: z.object({}) })).fingerprint).not.toBe(base);
    expect(describeDefinition({ ...workflow(z.object({})), version: 2 }).fingerprint).not.toBe(base);
  });

  it("keeps the fingerprint when only the order of keys changes (fields, nested fields, required)", () => {
    const ab = z.object({ a: z.string(), b: z.number(), nested: z.object({ x: z.string(), y: z.string() }) });
    const ba = z.object({ nested: z.object({ y: z.string(), x: z.string() }), b: z.number(), a: z.string() });
    expect(describeDefinition(workflow(ba)).fingerprint).toBe(describeDefinition(workflow(ab)).fingerprint);
    // zod lists `required` in declaration order; the published schema lists it sorted.
    expect(toolSchemaOf(ba).required).toEqual(["a", "b", "nested"]);
    expect((toolSchemaOf(ba).properties as Record<string, { required?: string[] }>).nested?.required).toEqual(["x", "y"]);
  });

  it("keeps the fingerprint when a preflight request only lists its keys or required fields in another order", () => {
    const request = (required: string[]) => ({
      method: "elicitation/create" as const,
      params: {
        message: "Who?",
        requestedSchema: {
          type: "object" as const,
          properties: { first: { type: "string" }, last: { type: "string" } },
          required,
        },
      },
    });
    const one = describeDefinition(workflow(z.object({}), { preflight: { a: request(["first", "last"]), b: request([]) } }));
    const two = describeDefinition(workflow(z.object({}), { preflight: { b: request([]), a: request(["last", "first"]) } }));
    expect(two.fingerprint).toBe(one.fingerprint);
  });

  it("keeps the order inside values that are data, not schema (a default holding a `required` key)", () => {
    const defaulted = (value: string[]) =>
      z.object({ rule: z.object({ required: z.array(z.string()) }).default({ required: value }) });
    expect(describeDefinition(workflow(defaulted(["a", "b"]))).fingerprint).not.toBe(
      describeDefinition(workflow(defaulted(["b", "a"]))).fingerprint,
    );
  });

  it("widens what JSON Schema cannot express instead of throwing (the worker's parse still decides)", () => {
    const described = describeDefinition(workflow(z.object({ when: z.date(), n: z.string().transform(Number) })));
    expect(described.inputSchema).toMatchObject({ type: "object", properties: { when: {}, n: { type: "string" } } });
  });
});

describe("describeDefinition: asks", () => {
  const input = z.object({ a: z.string() });
  const ask = {
    method: "elicitation/create",
    params: { message: "?", requestedSchema: { type: "object", properties: {} } },
  } as const;

  it("publishes what a workflow declares it may ask, both kinds spelled out; preflight questions imply input", () => {
    expect(describeDefinition(workflow(input, { asks: { input: true } })).asks).toEqual({ input: true, approval: false });
    expect(describeDefinition(workflow(input, { asks: {} })).asks).toEqual({ input: false, approval: false });
    expect(describeDefinition(workflow(input, { asks: {}, preflight: { q: ask } })).asks).toEqual({
      input: true,
      approval: false,
    });
    expect(describeDefinition(workflow(input)).asks).toBeNull();
  });

  it("leaves the fingerprint of a definition that declares nothing as it was before asks existed", () => {
    const plain = describeDefinition(workflow(input));
    // concurrency and priority (issue 32) came later still: undeclared, they leave it as it was too.
    const { fingerprint: _f, asks: _a, codeFingerprint: _c, concurrency: _k, priority: _p, ...declared } = plain;
    expect(plain.fingerprint).toBe(createHash("sha256").update(canonicalJson(declared)).digest("hex"));
    expect(describeDefinition(workflow(input, { asks: {} })).fingerprint).not.toBe(plain.fingerprint);
  });

  it("publishes concurrency and priority as data, part of the fingerprint only when declared", () => {
    const plain = describeDefinition(workflow(input));
    expect([plain.concurrency, plain.priority]).toEqual([null, 0]);
    const keyed = describeDefinition(workflow(input, { concurrency: { key: { input: "/a~1b/c~0" }, limit: 2 }, priority: 5 }));
    expect([keyed.concurrency, keyed.priority]).toEqual([{ path: ["a/b", "c~"], limit: 2 }, 5]);
    expect(keyed.fingerprint).not.toBe(plain.fingerprint);
    expect(describeDefinition(workflow(input, { concurrency: { key: "deploys", limit: 1 } })).concurrency).toEqual({
      key: "deploys",
      limit: 1,
    });
    expect(() => workflow(input, { concurrency: { key: "x", limit: 0 } })).toThrow(/limit must be an integer/);
    expect(() => workflow(input, { concurrency: { key: { input: "service" }, limit: 1 } })).toThrow(/JSON pointer/);
    expect(() => workflow(input, { priority: 1.5 })).toThrow(/priority must be an integer/);
  });

  it("refuses kinds it does not know", () => {
    expect(() => workflow(input, { asks: { inputs: true } as never })).toThrow(/unknown kind "inputs"/);
    expect(() => workflow(input, { asks: { input: "yes" } as never })).toThrow(/must be a boolean/);
  });
});
