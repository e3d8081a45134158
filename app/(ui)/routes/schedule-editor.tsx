"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, startTransition as startAction, useActionState, useEffect, useId, useState, useTransition } from "react";
import type { RouteItem } from "@/lib/ui/presenters/routes";
import { buttonClass, inputClass, secondaryButtonClass, Time } from "../_components/ui";
import { previewSchedule, setRouteScheduleForm, setRouteSchedulePausedForm } from "../actions";
import { ScheduleInputFields } from "./schedule-input-fields";

const FIELD = "flex flex-col gap-1 text-xs font-medium text-slate-600";

/**
 * Sets, changes, previews, pauses and resumes a route's cron schedule. Every check (croner parses
 * the cron in that timezone, the schedule's input fits the route) is the server's; this form only
 * shows its answer. The input is edited beside the cron (schedule-input-fields.tsx); changing the
 * cron keeps the catch-up policy. Saving, pausing and resuming post forms to server actions, so
 * they work before the page's scripts load. Preview needs scripts: it saves nothing (a read), and
 * saving shows the same next fire times.
 */
export function ScheduleEditor({ route }: { route: RouteItem }) {
  const router = useRouter();
  const label = `${route.tenantSlug}/${route.tool}`;
  const [cron, setCron] = useState(route.schedule?.cron ?? "");
  const [timezone, setTimezone] = useState(route.schedule?.timezone ?? "UTC");
  const [preview, setPreview] = useState<string[] | null>(null);
  const [busy, start] = useTransition();
  const [saved, save, saving] = useActionState(setRouteScheduleForm, null);
  const [toggled, togglePause, toggling] = useActionState(setRouteSchedulePausedForm, null);
  // Pause/Resume is its own form (forms do not nest); its button sits in this one and names it by id.
  const pauseForm = useId();
  // Before scripts load, a refused save or pause comes back as the rendered page: its message shows from the start.
  const refused = [saved, toggled].find((result) => result && !result.ok);
  const [error, setError] = useState<string | null>(refused && !refused.ok ? refused.error : null);
  const pending = busy || saving || toggling;
  // Review F7: a refused input outlined the Cron and Timezone boxes, which were not at fault.
  const timingInvalid = error && !error.startsWith("schedule input:") ? true : undefined;

  useEffect(() => {
    if (!saved) return;
    setError(saved.ok ? null : saved.error);
    if (saved.ok) setPreview(null);
    router.refresh();
  }, [saved, router]);
  useEffect(() => {
    if (!toggled) return;
    setError(toggled.ok ? null : toggled.error);
    router.refresh();
  }, [toggled, router]);

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
  const onSave = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    startAction(() => save(data));
  };

  return (
    <details className="mt-2 text-sm" data-schedule-editor={label}>
      <summary className="cursor-pointer text-indigo-700">{route.schedule ? "Change schedule" : "Add a schedule"}</summary>
      <form className="mt-2 flex flex-wrap items-end gap-2" aria-label={`Schedule of ${label}`} action={save} onSubmit={onSave}>
        <input type="hidden" name="tenantId" value={route.tenantId} />
        <input type="hidden" name="toolName" value={route.tool} />
        {route.schedule?.catchUp && <input type="hidden" name="catchUp" value={route.schedule.catchUp} />}
        <label className={FIELD}>
          Cron
          <input
            className={`${inputClass} font-mono`}
            name="cron"
            required
            value={cron}
            onChange={(e) => setCron(e.target.value)}
            placeholder="0 9 * * 1-5"
            aria-invalid={timingInvalid}
            spellCheck={false}
            autoComplete="off"
          />
        </label>
        <label className={FIELD}>
          Timezone
          <input
            className={inputClass}
            name="timezone"
            value={timezone}
            onChange={(e) => setTimezone(e.target.value)}
            placeholder="Europe/Paris"
            aria-invalid={timingInvalid}
            spellCheck={false}
            autoComplete="off"
          />
        </label>
        <ScheduleInputFields route={route} idPrefix={`schedule-${route.tenantSlug}-${route.tool}`} />
        {/* Script-only, on purpose: a read that saves nothing (before scripts load, Save shows the fire times). */}
        <button type="button" className={secondaryButtonClass} disabled={pending || !cron.trim()} onClick={onPreview}>
          Preview
        </button>
        <button type="submit" className={buttonClass} disabled={pending}>
          Save schedule
        </button>
        {route.schedule && (
          <button type="submit" form={pauseForm} className={secondaryButtonClass} disabled={pending}>
            {route.schedule.paused ? "Resume schedule" : "Pause schedule"}
          </button>
        )}
      </form>
      {route.schedule && (
        <form id={pauseForm} action={togglePause}>
          <input type="hidden" name="tenantId" value={route.tenantId} />
          <input type="hidden" name="toolName" value={route.tool} />
          <input type="hidden" name="paused" value={String(!route.schedule.paused)} />
        </form>
      )}
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
