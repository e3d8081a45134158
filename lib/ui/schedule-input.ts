import { type FormField, fieldsFromSchema, type RawValue, validateForm } from "./schema-form";

/**
 * The input a schedule's runs start with, edited in the console (review F7: the editor had no input
 * field, so a tool with required arguments could not be scheduled from the console at all). A flat
 * input schema — properties of strings, numbers, booleans, enums and lists of enum values, the shape
 * of an elicitation form — gets one control per property (the inbox's controls, lib/ui/schema-form);
 * anything else (nested objects, free lists) is edited as JSON. Either way the server checks the
 * result against the route's schema (lib/admin checkSchedule) before anything is saved.
 */

const PRIMITIVES = new Set(["string", "number", "integer", "boolean"]);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function isFlatProperty(property: unknown): boolean {
  if (!isObject(property)) return false;
  if (Array.isArray(property.enum) || Array.isArray(property.oneOf) || Array.isArray(property.anyOf)) return true;
  if (property.type === "array") {
    const items = property.items;
    return isObject(items) && (Array.isArray(items.enum) || Array.isArray(items.oneOf) || Array.isArray(items.anyOf));
  }
  return typeof property.type === "string" && PRIMITIVES.has(property.type);
}

/** The form fields of a schedule's input, or null when the schema is edited as JSON instead. */
export function scheduleInputFields(inputSchema: unknown): FormField[] | null {
  if (!isObject(inputSchema) || !isObject(inputSchema.properties)) return null;
  const properties = Object.values(inputSchema.properties);
  if (properties.length === 0 || !properties.every(isFlatProperty)) return null;
  return fieldsFromSchema(inputSchema);
}

/** The controls' starting values: the schedule's current input where it has one, else the schema's defaults. */
export function scheduleInputValues(fields: FormField[], current: Record<string, unknown> | undefined): Record<string, RawValue> {
  const values: Record<string, RawValue> = {};
  for (const field of fields) {
    const value = current?.[field.key];
    if (field.kind === "boolean") values[field.key] = typeof value === "boolean" ? value : (field.default ?? false);
    else if (field.kind === "multi") values[field.key] = Array.isArray(value) ? value.map(String) : (field.default ?? []);
    else if (value !== undefined && value !== null) values[field.key] = String(value);
    else values[field.key] = field.default === undefined ? "" : String(field.default);
  }
  return values;
}

/**
 * The tool arguments the posted controls give, typed by the route's schema; or the problems, one
 * line naming each field ("release: Required"), for the editor to show.
 */
export function scheduleInputFromForm(
  inputSchema: unknown,
  raw: Record<string, RawValue>,
): { ok: true; input: Record<string, unknown> } | { ok: false; message: string } {
  const fields = scheduleInputFields(inputSchema);
  if (!fields) return { ok: false, message: "this tool's input is edited as JSON" };
  const { content, errors } = validateForm(fields, raw);
  const problems = fields.filter((field) => errors[field.key]).map((field) => `${field.label}: ${errors[field.key]}`);
  return problems.length > 0 ? { ok: false, message: problems.join("; ") } : { ok: true, input: content };
}
