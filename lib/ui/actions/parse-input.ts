import type { z } from "zod";
import { AppError } from "../../errors";

/** Parses action input with zod; the first problem becomes a bad_request naming the field. */
export function parseInput<T>(schema: z.ZodType<T>, input: unknown): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join(".");
  throw new AppError("bad_request", field ? `${field}: ${issue?.message}` : (issue?.message ?? "Invalid input."));
}
