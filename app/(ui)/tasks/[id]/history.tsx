"use client";

import { useState } from "react";
import type { TaskEventItem } from "@/lib/ui/presenters/task-detail";
import { fetchJson } from "@/lib/ui/query-client";
import { Card, secondaryButtonClass, Time } from "../../_components/ui";

type Page = { events: TaskEventItem[]; olderThan: number | null };

/**
 * The run's history, newest first. The newest page is live (it comes with each detail refresh);
 * older pages are fetched on demand by event-id cursor and do not change once written.
 */
export function History({ taskId, newest, olderThan }: { taskId: string; newest: TaskEventItem[]; olderThan: number | null }) {
  const [older, setOlder] = useState<Page[]>([]);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const cursor = older.length ? (older.at(-1)?.olderThan ?? null) : olderThan;
  const seen = new Set(newest.map((event) => event.id));
  const events = [...newest, ...older.flatMap((page) => page.events).filter((event) => !seen.has(event.id))];

  async function loadOlder() {
    if (cursor === null) return;
    setLoading(true);
    setError(null);
    try {
      const page = await fetchJson<Page>(`/api/ui/tasks/${taskId}?before=${cursor}`);
      setOlder((pages) => [...pages, page]);
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setLoading(false);
    }
  }

  return (
    <Card title="History">
      <ol className="relative flex flex-col gap-3 border-l border-slate-200 pl-4" aria-label="Task history, newest first">
        {events.map((event) => (
          <li key={event.id} className="text-sm">
            <span className="absolute -left-1.5 mt-1.5 size-3 rounded-full border-2 border-white bg-indigo-500" aria-hidden />
            {/* The raw actor label (operator:<id>, key:<id>) stays at hand as the line's title. */}
            <span className="font-medium text-slate-800" title={event.actor}>
              {event.summary}
            </span>
            <span className="ml-2 text-xs text-slate-500">
              <Time iso={event.at} />
            </span>
          </li>
        ))}
      </ol>
      {cursor !== null && (
        <button type="button" className={`${secondaryButtonClass} mt-4`} onClick={loadOlder} disabled={loading}>
          {loading ? "Loading…" : "Load older events"}
        </button>
      )}
      {error && (
        <p role="alert" className="mt-2 text-sm text-red-700">
          {error}
        </p>
      )}
    </Card>
  );
}
