/**
 * The words of a credential-change notice (ASVS 2.2.3): what changed, when, from where, who did it
 * and what to do if it was not the reader. Built only from what the caller passes in here, and no
 * caller passes a password, code, secret or token: the notice says that something changed, never
 * what it changed to.
 */
export type CredentialChange =
  | "password_changed"
  | "password_reset"
  | "mfa_enrolled"
  | "mfa_disabled"
  | "mfa_reset"
  | "recovery_code_used"
  | "api_key_created"
  | "operator_token_created"
  | "oauth_client_authorized";

export type NoticeFacts = {
  change: CredentialChange;
  /** The account's display name (or its email). */
  name: string;
  at: Date;
  /** The client address of the request that made the change; null when the path does not know it (the CLI). */
  clientAddress: string | null;
  /** Who made the change, in words ("a sign-in to your account", "an administrator"). */
  by: string;
  /** Non-secret particulars: a key's name and tenant, a client's name, how many recovery codes are left. */
  details?: string[];
  /** RUNIFOLD_PUBLIC_URL, for links to the console. */
  publicUrl?: string;
};

const SUBJECTS: Record<CredentialChange, string> = {
  password_changed: "Your Runifold password was changed",
  password_reset: "Your Runifold password was reset by an administrator",
  mfa_enrolled: "Two-factor authentication was turned on for your Runifold account",
  mfa_disabled: "Two-factor authentication was turned off for your Runifold account",
  mfa_reset: "An administrator removed two-factor authentication from your Runifold account",
  recovery_code_used: "A recovery code of your Runifold account was used",
  api_key_created: "A Runifold API key was created in your name",
  operator_token_created: "A Runifold operator API token was created for your account",
  oauth_client_authorized: "An application was connected to your Runifold account",
};

const WHAT: Record<CredentialChange, string> = {
  password_changed: "The password of your Runifold account was changed.",
  password_reset:
    "The password of your Runifold account was reset to a temporary one, which you must replace at your next sign-in. Your sessions and connected applications were ended.",
  mfa_enrolled: "Two-factor authentication was turned on for your Runifold account, with a new authenticator device.",
  mfa_disabled: "Two-factor authentication was turned off for your Runifold account: a password alone now signs in.",
  mfa_reset:
    "Two-factor authentication was removed from your Runifold account (its authenticator device and recovery codes). Your sessions and connected applications were ended.",
  recovery_code_used: "One of the recovery codes of your Runifold account was used in place of an authenticator code.",
  api_key_created: "An API key was created in your name.",
  operator_token_created: "An operator API token was created for your account: it acts with your rights within its scopes.",
  oauth_client_authorized: "An application was given access to Runifold in your name.",
};

/** What to do if the reader did not do this (or did not ask an administrator to). */
const IF_NOT_YOU: Record<CredentialChange, string> = {
  password_changed: "ask an administrator to reset your password at once; that also ends every session",
  password_reset: "tell an administrator at once: someone may be trying to take over your account",
  mfa_enrolled: "ask an administrator to reset your two-factor authentication and your password at once",
  mfa_disabled: "change your password, turn two-factor authentication on again, and tell an administrator",
  mfa_reset: "tell an administrator at once: someone may be trying to take over your account",
  recovery_code_used: "change your password, sign out everywhere on the Account page, and tell an administrator",
  api_key_created: "revoke the key on the Connections page, change your password, and tell an administrator",
  operator_token_created: "revoke the token on the API tokens page, change your password, and tell an administrator",
  oauth_client_authorized: "revoke it on the Connections page, change your password, and tell an administrator",
};

/** Where in the console the reader sees (and undoes) the change. */
const PAGE: Record<CredentialChange, string> = {
  password_changed: "/account/password",
  password_reset: "/account/password",
  mfa_enrolled: "/account/mfa",
  mfa_disabled: "/account/mfa",
  mfa_reset: "/account/mfa",
  recovery_code_used: "/account/mfa",
  api_key_created: "/connections",
  operator_token_created: "/account/tokens",
  oauth_client_authorized: "/connections",
};

/** `2026-12-03 11:45:10 UTC`: one unambiguous form whatever the reader's mail client does with dates. */
export function utcStamp(at: Date): string {
  return `${at.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/**
 * A detail on one line of its own, at most 300 characters: some come from outside (a registered
 * client's name), and a line break in one must not forge lines of the notice.
 */
function oneLine(detail: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  return detail.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ").slice(0, 300);
}

export function noticeSubject(change: CredentialChange): string {
  return SUBJECTS[change];
}

export function noticeText(facts: NoticeFacts): string {
  const console = facts.publicUrl?.replace(/\/+$/, "");
  return [
    `Hello ${oneLine(facts.name)},`,
    "",
    WHAT[facts.change],
    "",
    `When: ${utcStamp(facts.at)}`,
    `By: ${facts.by}`,
    `From address: ${facts.clientAddress ?? "not known"}`,
    ...(facts.details ?? []).map(oneLine),
    "",
    "If this was you, there is nothing to do.",
    `If it was not you, ${IF_NOT_YOU[facts.change]}.`,
    ...(console ? [`In the console (sign-in required): ${console}${PAGE[facts.change]}`] : []),
    "",
    "This notice never contains a password, a code or a key, and nobody from Runifold will ask you for one.",
  ].join("\n");
}
