/**
 * The one application error. Its code decides the HTTP status and the user-facing message;
 * internal causes are logged by whoever catches them and never returned to a caller.
 */
export type AppErrorCode = "unauthenticated" | "forbidden" | "not_found" | "bad_request" | "conflict";

const STATUS: Record<AppErrorCode, number> = {
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  bad_request: 400,
  conflict: 409,
};

const DEFAULT_MESSAGE: Record<AppErrorCode, string> = {
  unauthenticated: "Sign in to continue.",
  forbidden: "Not allowed.",
  not_found: "Not found.",
  bad_request: "The request is not valid.",
  conflict: "That conflicts with the current state.",
};

export class AppError extends Error {
  readonly code: AppErrorCode;
  constructor(code: AppErrorCode, message?: string) {
    super(message ?? DEFAULT_MESSAGE[code]);
    this.code = code;
  }

  get status(): number {
    return STATUS[this.code];
  }

  toResponse(): Response {
    return Response.json(
      { error: this.code, message: this.message },
      { status: this.status, headers: { "cache-control": "no-store" } },
    );
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
