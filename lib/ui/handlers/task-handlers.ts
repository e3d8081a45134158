import "server-only";
import { coerceError, createLogger } from "@runifold/sdk";
import type { OperatorContext } from "../../auth";
import { noteIfDenied, requireOperator } from "../../auth";
import { AppError, isAppError } from "../../errors";
import { presentStepOutput, presentTaskDetail, presentTaskEvents, presentTaskView } from "../presenters/task-detail";
import { presentTaskPage } from "../presenters/task-list";

const log = createLogger("ui");

/**
 * Maps what a handler throws to a response; internal causes are logged, never returned. A refusal
 * of a signed-in operator is recorded as `access.denied` for `target` (ASVS 7.2.2).
 */
async function respond(
  run: () => Promise<unknown>,
  denial?: { ctx: OperatorContext; target: string; input?: unknown },
): Promise<Response> {
  try {
    return Response.json(await run(), { headers: { "cache-control": "no-store" } });
  } catch (error) {
    if (denial) await noteIfDenied(denial.ctx, error, denial.target, denial.input);
    if (isAppError(error)) return error.toResponse();
    log.error("ui handler failed", { error: coerceError(error).message });
    return Response.json({ error: "internal", message: "Something went wrong." }, { status: 500 });
  }
}

// GET /api/ui/tasks – one page of the live task list for the URL's filters (one query per call).
export function handleTaskList(ctx: OperatorContext, request: Request): Promise<Response> {
  return respond(async () => {
    const operator = await requireOperator(ctx);
    return presentTaskPage(ctx.sql, operator, new URL(request.url).searchParams);
  });
}

// GET /api/ui/tasks/:id – the task detail (polled), ?before=<eventId> for an older history page, or
// ?step=<key> for one step's whole output. A purged task answers its tombstone (`purged: true`)
// instead of the run (`purged: false`); a purged task has no history or steps left, so its ?before=
// and ?step= are the 404 of a missing ID.
export function handleTaskDetail(ctx: OperatorContext, request: Request, taskId: string): Promise<Response> {
  return respond(
    async () => {
      const operator = await requireOperator(ctx);
      const search = new URL(request.url).searchParams;
      const step = search.get("step");
      if (step !== null) {
        if (step.length === 0 || step.length > 300) throw new AppError("bad_request", "Bad step key.");
        const output = await presentStepOutput(ctx.sql, operator, taskId, step);
        if (!output) throw new AppError("not_found");
        return output;
      }
      const before = search.get("before");
      if (before !== null) {
        if (!/^\d{1,15}$/.test(before)) throw new AppError("bad_request", "Bad cursor.");
        const detail = await presentTaskDetail(ctx.sql, operator, taskId);
        if (!detail) throw new AppError("not_found");
        return presentTaskEvents(ctx.sql, operator, taskId, Number(before));
      }
      const view = await presentTaskView(ctx.sql, operator, taskId);
      if (!view) throw new AppError("not_found");
      return view;
    },
    { ctx, target: "GET /api/ui/tasks/{id}", input: { taskId } },
  );
}
