import type { z } from "zod";
import { AppError } from "../errors";

/**
 * Parses an operation's input with its schema; the first problem becomes a bad_request naming the
 * field (`slug: …`), which the console shows beside the form and the CLI prints as a usage error.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join(".");
  throw new AppError("bad_request", field ? `${field}: ${issue?.message}` : (issue?.message ?? "Invalid input."));
}
