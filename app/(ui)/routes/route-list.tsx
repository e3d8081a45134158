"use client";

import Link from "next/link";
import type { RouteItem } from "@/lib/ui/presenters/routes";
import { ActionForm } from "../_components/action-form";
import { dangerButtonClass, Empty, secondaryButtonClass, Time } from "../_components/ui";
import { disableRouteForm } from "../actions";
import { ScheduleEditor } from "./schedule-editor";

export function RouteList({ routes }: { routes: RouteItem[] }) {
  if (routes.length === 0) return <Empty>No routes yet.</Empty>;
  return (
    <div className="flex flex-col gap-3">
      <ul className="flex flex-col gap-3">
        {routes.map((route) => (
          <li
            key={`${route.tenantId}/${route.tool}`}
            data-route={`${route.tenantSlug}/${route.tool}`}
            className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm"
          >
            <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
              {/* break-all: tool and workflow names are long unbroken words (the conformance fixtures'
                  reach 50 characters), which would widen the page past a phone's screen. */}
              <h2 className="min-w-0 break-all font-mono text-sm font-semibold text-slate-900">
                <span className="text-slate-500">{route.tenantSlug}/</span>
                {route.tool}
              </h2>
              <span className="text-xs text-slate-500">revision {route.revision}</span>
              <span className="min-w-0 break-all text-sm text-slate-700">→ {route.workflowKey}</span>
              <span className="text-xs text-slate-500" data-definition-revision={route.definitionRevision ?? "unpublished"}>
                {route.definitionRevision === null
                  ? "bound without a published definition"
                  : `definition revision ${route.definitionRevision}`}
              </span>
              <span className="text-xs text-slate-500">task support: {route.taskSupport}</span>
              {route.disabled ? (
                <span className="rounded-full bg-slate-100 px-2 py-0.5 text-xs text-slate-700">disabled</span>
              ) : route.servedBy > 0 ? (
                <span className="rounded-full bg-emerald-50 px-2 py-0.5 text-xs text-emerald-800 ring-1 ring-emerald-600/20">
                  served by {route.servedBy} online worker{route.servedBy === 1 ? "" : "s"}
                </span>
              ) : (
                <span className="min-w-0 break-all rounded-full bg-red-50 px-2 py-0.5 text-xs text-red-800 ring-1 ring-red-600/20">
                  no online worker serves {route.workflowKey}
                </span>
              )}
            </div>
            {route.schedule && <ScheduleSummary schedule={route.schedule} />}
            {(route.title || route.description) && (
              <p className="mt-1 text-sm text-slate-600">
                {route.title && <strong className="font-medium">{route.title}. </strong>}
                {route.description}
              </p>
            )}
            <ScheduleEditor route={route} />
            <div className="mt-2 flex flex-wrap items-start justify-between gap-2">
              <details className="min-w-0 flex-1 text-sm">
                <summary className="cursor-pointer text-indigo-700">Input schema</summary>
                <pre className="mt-2 max-h-64 overflow-auto rounded-md bg-slate-900 p-3 text-xs text-slate-100">
                  {JSON.stringify(route.inputSchema, null, 2)}
                </pre>
              </details>
              <Link
                href={`/routes?revise=${encodeURIComponent(`${route.tenantId}/${route.tool}`)}`}
                className={secondaryButtonClass}
                aria-label={`Revise ${route.tenantSlug}/${route.tool}`}
                scroll={false}
              >
                Revise
              </Link>
              {!route.disabled && (
                <ActionForm label={`Disable route ${route.tenantSlug}/${route.tool}`} action={disableRouteForm}>
                  <input type="hidden" name="tenantId" value={route.tenantId} />
                  <input type="hidden" name="toolName" value={route.tool} />
                  <button type="submit" className={dangerButtonClass} aria-label={`Disable ${route.tenantSlug}/${route.tool}`}>
                    Disable
                  </button>
                </ActionForm>
              )}
            </div>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The saved schedule and its next 5 fire times (shown paused too: they are what resuming fires). */
function ScheduleSummary({ schedule }: { schedule: NonNullable<RouteItem["schedule"]> }) {
  return (
    <div className="mt-1 text-xs text-slate-600" data-schedule={schedule.cron} data-paused={schedule.paused}>
      Scheduled <span className="font-mono">{schedule.cron}</span> ({schedule.timezone}, catch-up {schedule.catchUp})
      {schedule.paused && <span className="ml-2 rounded-full bg-amber-50 px-2 py-0.5 text-amber-800">paused</span>}; next{" "}
      {schedule.paused ? "(when resumed)" : ""}:
      {schedule.next.length === 0 ? (
        " —"
      ) : (
        <ol aria-label="Next fire times" className="inline">
          {schedule.next.map((at) => (
            <li key={at} className="ml-2 inline">
              <Time iso={at} />
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
