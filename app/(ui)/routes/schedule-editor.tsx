"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import type { RouteItem } from "@/lib/ui/presenters/routes";
import { buttonClass, inputClass, secondaryButtonClass, Time } from "../_components/ui";
import { previewSchedule, setRouteSchedule, setRouteSchedulePaused } from "../actions";

const FIELD = "flex flex-col gap-1 text-xs font-medium text-slate-600";

/**
 * Sets, changes, previews, pauses and resumes a route's cron schedule. Every check (croner parses
 * the cron in that timezone, the schedule's input fits the route) is the server's; this form only
 * shows its answer. Changing the cron keeps the schedule's input and catch-up policy.
 */
export function ScheduleEditor({ route }: { route: RouteItem }) {
  const router = useRouter();
  const label = `${route.tenantSlug}/${route.tool}`;
  const [cron, setCron] = useState(route.schedule?.cron ?? "");
  const [timezone, setTimezone] = useState(route.schedule?.timezone ?? "UTC");
  const [preview, setPreview] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, start] = useTransition();
  const target = { tenantId: route.tenantId, toolName: route.tool };

  const run = (work: () => Promise<string | null>) =>
    start(async () => {
      setError(await work());
    });
  const onPreview = () =>
    run(async () => {
      const result = await previewSchedule({ cron, timezone });
      setPreview(result.ok ? result.data.next : null);
      return result.ok ? null : result.error;
    });
  const onSave = () =>
    run(async () => {
      const schedule = { cron, timezone, catchUp: route.schedule?.catchUp, input: route.schedule?.input };
      const result = await setRouteSchedule({ ...target, schedule });
      if (result.ok) setPreview(null);
      router.refresh();
      return result.ok ? null : result.error;
    });
  const onPause = (paused: boolean) =>
    run(async () => {
      const result = await setRouteSchedulePaused({ ...target, paused });
      router.refresh();
      return result.ok ? null : result.error;
    });

  return (
    <details className="mt-2 text-sm" data-schedule-editor={label}>
      <summary className="cursor-pointer text-indigo-700">{route.schedule ? "Change schedule" : "Add a schedule"}</summary>
      <form
        className="mt-2 flex flex-wrap items-end gap-2"
        aria-label={`Schedule of ${label}`}
        onSubmit={(e) => {
          e.preventDefault();
          onSave();
        }}
      >
        <label className={FIELD}>
          Cron
          <input
            className={`${inputClass} font-mono`}
            value={cron}
            onChange={(e) => setCron(e.target.value)}
            placeholder="0 9 * * 1-5"
            aria-invalid={error ? true : undefined}
            spellCheck={false}
            autoComplete="off"
          />
        </label>
        <label className={FIELD}>
          Timezone
          <input
            className={inputClass}
            value={timezone}
            onChange={(e) => setTimezone(e.target.value)}
            placeholder="Europe/Paris"
            aria-invalid={error ? true : undefined}
            spellCheck={false}
            autoComplete="off"
          />
        </label>
        <button type="button" className={secondaryButtonClass} disabled={pending || !cron.trim()} onClick={onPreview}>
          Preview
        </button>
        <button type="submit" className={buttonClass} disabled={pending || !cron.trim()}>
          Save schedule
        </button>
        {route.schedule && (
          <button
            type="button"
            className={secondaryButtonClass}
            disabled={pending}
            onClick={() => onPause(!route.schedule?.paused)}
          >
            {route.schedule.paused ? "Resume schedule" : "Pause schedule"}
          </button>
        )}
      </form>
      {error && (
        <p role="alert" className="mt-1 text-sm text-red-700">
          {error}
        </p>
      )}
      {preview && (
        <div className="mt-1 text-xs text-slate-600">
          Would fire next (not saved):
          <ol aria-label="Preview of the next fire times" className="ml-4 list-decimal">
            {preview.map((at) => (
              <li key={at}>
                <Time iso={at} />
              </li>
            ))}
          </ol>
        </div>
      )}
    </details>
  );
}
