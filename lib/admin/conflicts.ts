import { isUniqueViolation } from "@runifold/store";
import { AppError } from "../errors";

/** Runs an insert; a unique violation (duplicate slug, email, tool revision) becomes a conflict with `message`. */
export async function conflictOnDuplicate<T>(insert: () => Promise<T>, message: string): Promise<T> {
  try {
    return await insert();
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError("conflict", message);
    throw error;
  }
}
