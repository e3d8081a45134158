import { modernRequest, TASKS_ONLY } from "../helpers/mcp-envelope";
import { sseMessages } from "../helpers/sse";

/** A minimal 2026-07-28 client for the fault tests: every request is self-contained; never throws on HTTP errors. */
export type Answer = {
  status: number;
  body: string;
  json?: { result?: Record<string, unknown>; error?: { code: number; message: string } };
};

// Every request has id 1: answers are compared byte for byte (a foreign task ID against an unknown one).
function request(method: string, params: Record<string, unknown>, token: string): RequestInit {
  return { ...modernRequest(method, params, { token, id: 1, capabilities: TASKS_ONLY }), signal: AbortSignal.timeout(10_000) };
}

/** One call; a connection failure answers status 0 (the client retries it, as a real one would). */
export async function call(url: string, method: string, params: Record<string, unknown>, token: string): Promise<Answer> {
  try {
    const response = await fetch(url, request(method, params, token));
    const body = await response.text();
    let json: Answer["json"];
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
    return { status: response.status, body, json };
  } catch {
    return { status: 0, body: "" };
  }
}

/**
 * subscriptions/listen for `taskIds`: calls `onTask` for every notifications/tasks; resolves when the
 * stream ends (all terminal) or breaks (status 0 / error), so the caller can re-listen by task ID.
 */
export async function listen(
  url: string,
  taskIds: string[],
  token: string,
  onTask: (task: { taskId: string; status: string }) => void,
  onBroken?: (why: string) => void,
  signal?: AbortSignal,
): Promise<"ended" | "broken"> {
  try {
    const timeout = AbortSignal.timeout(60_000);
    const response = await fetch(url, {
      ...request("subscriptions/listen", { notifications: { taskIds } }, token),
      // `signal`: the caller breaks the stream itself (a client whose connection dropped).
      signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
    });
    if (response.status !== 200 || !response.body) {
      onBroken?.(`HTTP ${response.status}: ${(await response.text().catch(() => "")).slice(0, 200)}`);
      return "broken";
    }
    for await (const message of sseMessages(response)) {
      if (message.method === "notifications/tasks" && message.params) onTask(message.params);
    }
    return "ended";
  } catch (error) {
    onBroken?.(String(error));
    return "broken";
  }
}

export const TERMINAL = new Set(["completed", "failed", "cancelled"]);
