import { dictionary } from "@zxcvbn-ts/language-common";
import { z } from "zod";

/**
 * The one definition of each admin validation rule. The console, the CLI and the demo seed all
 * create tenants, operators, keys and routes through lib/admin, whose schemas are built from these,
 * so a value one of them accepts the others accept too. Patterns are strings without anchors: the
 * console's forms repeat the slug and tool-name patterns as HTML `pattern` attributes (a browser
 * convenience, pinned to these by tests/admin/rules.test.ts), so they are written to mean the same
 * with or without the `u`/`v` RegExp flags (a dash in a class is escaped).
 */

/** Tenant slugs: a DNS label, 1–63 lower-case letters, digits or dashes, starting and ending with a letter or digit. */
export const SLUG_PATTERN = "[a-z0-9](?:[a-z0-9\\-]{0,61}[a-z0-9])?";

/** MCP tool names: 1–128 letters, digits, `_`, `.` or `-`. */
export const TOOL_NAME_PATTERN = "[A-Za-z0-9_.\\-]{1,128}";

/** Workflow names, as defineWorkflow checks them (packages/sdk/src/workflow.ts). */
export const WORKFLOW_NAME_PATTERN = "[a-z0-9][a-z0-9._\\-]*";

const whole = (pattern: string) => new RegExp(`^(?:${pattern})$`);

export const slugRule = z
  .string()
  .trim()
  .regex(whole(SLUG_PATTERN), "1–63 lower-case letters, digits or dashes, starting and ending with a letter or digit");

export const tenantNameRule = z.string().trim().min(1, "Required").max(200, "At most 200 characters");

/** Emails compare case-insensitively (db/queries/operators.ts stores them lower-cased). */
export const emailRule = z
  .string()
  .trim()
  .toLowerCase()
  .max(320, "At most 320 characters")
  .pipe(z.email("Enter an email address"));

/**
 * zxcvbn's ~49k most common passwords (all lower case), as a Set on first use: building it costs a
 * few milliseconds that only password checks should pay. A static import, because zod refinements
 * run synchronously (parseInput uses safeParse) and it resolves the same under Next's bundler and
 * tsx/vitest. Keep this module out of client components: the list is ~380 KB.
 */
let commonPasswords: ReadonlySet<string> | undefined;
function isCommonPassword(password: string): boolean {
  commonPasswords ??= new Set(dictionary["passwords-common"]);
  return commonPasswords.has(password.toLowerCase());
}

const COMMON_PASSWORD_MESSAGE = "this password is in a list of commonly used passwords; choose another";

/** 12–200 characters and not a commonly used password (ASVS 2.1.1, 2.1.2, 2.1.7). */
export const passwordRule = z
  .string()
  .min(12, "12 to 200 characters")
  .max(200, "12 to 200 characters")
  .refine((password) => !isCommonPassword(password), COMMON_PASSWORD_MESSAGE);

export const OPERATOR_ROLES = ["admin", "operator"] as const;
export const roleRule = z.enum(OPERATOR_ROLES, "admin or operator");

export const operatorNameRule = z.string().trim().max(200, "At most 200 characters");

export const toolNameRule = z.string().trim().regex(whole(TOOL_NAME_PATTERN), "1–128 letters, digits, _ . or -");

export const workflowNameRule = z
  .string()
  .trim()
  .max(200, "At most 200 characters")
  .regex(whole(WORKFLOW_NAME_PATTERN), "A workflow name such as generate-report (lower-case letters, digits, . _ -)");

/** Coerced: forms send numbers as text. */
export const workflowVersionRule = z.coerce
  .number("An integer of at least 1")
  .int("An integer of at least 1")
  .min(1, "An integer of at least 1")
  .max(2_147_483_647, "At most 2147483647");

export const TASK_SUPPORT = ["optional", "required", "forbidden"] as const;
export const taskSupportRule = z.enum(TASK_SUPPORT, "optional, required or forbidden");

export const titleRule = z.string().trim().max(200, "At most 200 characters");
export const descriptionRule = z.string().trim().max(2_000, "At most 2000 characters");

export const keyNameRule = z.string().trim().min(1, "Required").max(100, "At most 100 characters");

/** The key ID is the 16 hex digits after `rf_` in a token (lib/auth/api-keys.ts). */
export const keyIdRule = z.string().regex(/^[0-9a-f]{16}$/, "16 hex digits (the part after rf_ in the token)");

export const expiresInDaysRule = z.number().int().min(1, "1 to 36500 days").max(36_500, "1 to 36500 days");

/** An ID of a row (tenant, operator): any string, so a malformed ID is "not found" like an unknown one. */
export const idRule = z.string();
