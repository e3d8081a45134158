/**
 * Forms from an elicitation `requestedSchema` (MCP's restricted JSON Schema: flat object of
 * primitives and enums). The same two functions run in the browser (inline validation) and in the
 * server action (which never trusts the browser), so both sides agree on what is valid.
 */
export type FormOption = { value: string; label: string };

type Common = { key: string; label: string; description?: string; required: boolean };

export type FormField =
  | (Common & { kind: "string"; format?: string; minLength?: number; maxLength?: number; default?: string })
  | (Common & { kind: "number"; integer: boolean; minimum?: number; maximum?: number; default?: number })
  | (Common & { kind: "boolean"; default?: boolean })
  | (Common & { kind: "enum"; options: FormOption[]; default?: string })
  | (Common & { kind: "multi"; options: FormOption[]; minItems?: number; maxItems?: number; default?: string[] });

/** What a form control holds: text for inputs and selects, a list for multi-selects, a flag for checkboxes. */
export type RawValue = string | string[] | boolean | undefined;
export type FormValue = string | number | boolean | string[];

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);
const num = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : undefined);
const str = (value: unknown) => (typeof value === "string" ? value : undefined);

/** `enum` + `enumNames`, or `oneOf`/`anyOf` of `{const, title}` (titled enums). */
function optionsOf(schema: JsonObject): FormOption[] | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.map((value, i) => ({ value: String(value), label: str(names[i]) ?? String(value) }));
  }
  const titled = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  if (!titled) return undefined;
  return titled
    .filter(isObject)
    .map((option) => ({ value: String(option.const), label: str(option.title) ?? String(option.const) }));
}

export function fieldsFromSchema(requestedSchema: unknown): FormField[] {
  if (!isObject(requestedSchema) || !isObject(requestedSchema.properties)) return [];
  const required = new Set(Array.isArray(requestedSchema.required) ? requestedSchema.required.map(String) : []);
  // Stored as jsonb, a schema's properties come back in jsonb's key order (shortest first), not the
  // author's; putting required fields first keeps the question that matters at the top.
  const entries = Object.entries(requestedSchema.properties).sort(
    ([a], [b]) => Number(required.has(b)) - Number(required.has(a)),
  );
  return entries.map(([key, raw]): FormField => {
    const schema = isObject(raw) ? raw : {};
    const common: Common = {
      key,
      label: str(schema.title) ?? key,
      required: required.has(key),
      ...(str(schema.description) ? { description: str(schema.description) } : {}),
    };
    if (schema.type === "array") {
      const items = isObject(schema.items) ? schema.items : {};
      const defaults = Array.isArray(schema.default) ? schema.default.map(String) : undefined;
      return {
        ...common,
        kind: "multi",
        options: optionsOf(items) ?? [],
        minItems: num(schema.minItems),
        maxItems: num(schema.maxItems),
        default: defaults,
      };
    }
    const options = optionsOf(schema);
    if (options)
      return { ...common, kind: "enum", options, default: schema.default === undefined ? undefined : String(schema.default) };
    if (schema.type === "boolean")
      return { ...common, kind: "boolean", default: typeof schema.default === "boolean" ? schema.default : undefined };
    if (schema.type === "number" || schema.type === "integer") {
      return {
        ...common,
        kind: "number",
        integer: schema.type === "integer",
        minimum: num(schema.minimum),
        maximum: num(schema.maximum),
        default: num(schema.default),
      };
    }
    return {
      ...common,
      kind: "string",
      format: str(schema.format),
      minLength: num(schema.minLength),
      maxLength: num(schema.maxLength),
      default: str(schema.default),
    };
  });
}

/** Initial control values: the schema's defaults, else empty. */
export function initialValues(fields: FormField[]): Record<string, RawValue> {
  const values: Record<string, RawValue> = {};
  for (const field of fields) {
    if (field.kind === "boolean") values[field.key] = field.default ?? false;
    else if (field.kind === "multi") values[field.key] = field.default ?? [];
    else values[field.key] = field.default === undefined ? "" : String(field.default);
  }
  return values;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

function formatError(format: string | undefined, value: string): string | undefined {
  if (format === "email" && !EMAIL.test(value)) return "Enter an email address";
  if (format === "uri") {
    try {
      new URL(value);
    } catch {
      return "Enter a full URL (https://…)";
    }
  }
  if (format === "date" && (!DATE.test(value) || Number.isNaN(Date.parse(value)))) return "Enter a date as YYYY-MM-DD";
  if (format === "date-time" && (!DATE_TIME.test(value) || Number.isNaN(Date.parse(value))))
    return "Enter a date and time like 2026-05-01T14:05:00Z";
  return undefined;
}

function checkField(field: FormField, raw: RawValue): { value?: FormValue; error?: string } {
  if (field.kind === "boolean") return { value: raw === true || raw === "true" || raw === "on" };
  if (field.kind === "multi") {
    const picked = Array.isArray(raw) ? raw : typeof raw === "string" && raw ? [raw] : [];
    if (picked.length === 0) return field.required ? { error: "Choose at least one" } : {};
    const allowed = new Set(field.options.map((option) => option.value));
    if (picked.some((value) => !allowed.has(value))) return { error: "Choose from the listed options" };
    if (field.minItems !== undefined && picked.length < field.minItems) return { error: `Choose at least ${field.minItems}` };
    if (field.maxItems !== undefined && picked.length > field.maxItems) return { error: `Choose at most ${field.maxItems}` };
    return { value: picked };
  }
  const text = typeof raw === "string" ? raw : "";
  if (text.trim() === "") return field.required ? { error: "Required" } : {};
  if (field.kind === "enum") {
    return field.options.some((option) => option.value === text) ? { value: text } : { error: "Choose from the listed options" };
  }
  if (field.kind === "number") {
    const value = Number(text);
    if (!Number.isFinite(value)) return { error: "Enter a number" };
    if (field.integer && !Number.isInteger(value)) return { error: "Enter a whole number" };
    if (field.minimum !== undefined && value < field.minimum) return { error: `Must be at least ${field.minimum}` };
    if (field.maximum !== undefined && value > field.maximum) return { error: `Must be at most ${field.maximum}` };
    return { value };
  }
  const length = [...text].length;
  if (field.minLength !== undefined && length < field.minLength) return { error: `At least ${field.minLength} characters` };
  if (field.maxLength !== undefined && length > field.maxLength) return { error: `At most ${field.maxLength} characters` };
  const problem = formatError(field.format, text);
  return problem ? { error: problem } : { value: text };
}

/** Validates raw control values; `content` is the ElicitResult content when `errors` is empty. */
export function validateForm(
  fields: FormField[],
  raw: Record<string, RawValue>,
): { content: Record<string, FormValue>; errors: Record<string, string> } {
  const content: Record<string, FormValue> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const checked = checkField(field, raw[field.key]);
    if (checked.error) errors[field.key] = checked.error;
    else if (checked.value !== undefined) content[field.key] = checked.value;
  }
  return { content, errors };
}
