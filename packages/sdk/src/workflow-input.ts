import { InvalidWorkflowInput } from "./errors";
import { UNSTORABLE_TEXT, unstorableTextPath } from "./json-value";
import type { AnyWorkflow } from "./workflow";

/**
 * A run's input as the store keeps it: the JSON round trip of what the caller sent (what every
 * attempt reads back), or InvalidWorkflowInput when it is not JSON or holds text jsonb refuses.
 */
export function storedInput(input: unknown, workflow: string): { text: string; value: unknown } {
  let text: string | undefined;
  try {
    text = JSON.stringify(input ?? null);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new InvalidWorkflowInput(`Invalid input for ${workflow}: not JSON (${reason})`, [{ path: "", message: reason }]);
  }
  text ??= "null";
  const value: unknown = JSON.parse(text);
  const path = unstorableTextPath(value);
  if (path !== undefined) {
    const where = path === "" ? "" : `${path}: `;
    throw new InvalidWorkflowInput(`Invalid input for ${workflow}: ${where}${UNSTORABLE_TEXT}`, [
      { path, message: UNSTORABLE_TEXT },
    ]);
  }
  return { text, value };
}

/**
 * The workflow's view of a stored input: its schema's output, parsed once from what is stored —
 * at creation to refuse a bad input before anything is written, and once per attempt to hand the
 * workflow its value (a transform applies once; a default need not be JSON). A refusal names each
 * issue's path and message.
 */
export function parseWorkflowInput(definition: AnyWorkflow, workflow: string, stored: unknown): unknown {
  const parsed = definition.input.safeParse(stored);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message }));
  const summary = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
  throw new InvalidWorkflowInput(`Invalid input for ${workflow}: ${summary}`, issues);
}
