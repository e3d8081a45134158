"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { diagnoseTask } from "@/lib/tasks/client";
import type { TaskListPage } from "@/lib/ui/presenters/task-list";
import { fetchJson } from "@/lib/ui/query-client";
import { ProgressBar } from "../_components/progress-bar";
import { Empty, StatusBadge, secondaryButtonClass, Time } from "../_components/ui";
import { type FilterOptions, TaskFilters } from "./task-filters";

const REFRESH_MS = 2_000;

/** URL filters → the API's query: datetime-local values (browser zone) become ISO instants. */
function apiQuery(search: URLSearchParams): string {
  const query = new URLSearchParams(search);
  for (const key of ["from", "to"]) {
    const value = query.get(key);
    if (value) query.set(key, new Date(value).toISOString());
  }
  return query.toString();
}

export function TaskList({ options }: { options: FilterOptions }) {
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const [previous, setPrevious] = useState<string[]>([]);
  const query = apiQuery(search);
  const { data, error, isFetching, dataUpdatedAt } = useQuery({
    queryKey: ["tasks", query],
    queryFn: () => fetchJson<TaskListPage>(`/api/ui/tasks?${query}`),
    refetchInterval: REFRESH_MS,
    placeholderData: keepPreviousData,
  });

  const navigate = (mutate: (params: URLSearchParams) => void) => {
    const params = new URLSearchParams(search);
    mutate(params);
    router.replace(`${pathname}?${params}`, { scroll: false });
  };
  const onFilter = (key: string, value: string) => {
    setPrevious([]);
    navigate((params) => {
      params.delete("cursor");
      if (value) params.set(key, value);
      else params.delete(key);
    });
  };
  const goOlder = (cursor: string) => {
    setPrevious((stack) => [...stack, search.get("cursor") ?? ""]);
    navigate((params) => params.set("cursor", cursor));
  };
  const goNewer = () => {
    const back = previous.at(-1) ?? "";
    setPrevious((stack) => stack.slice(0, -1));
    navigate((params) => (back ? params.set("cursor", back) : params.delete("cursor")));
  };
  const now = data ? new Date(data.serverNow) : new Date();

  return (
    <div>
      <TaskFilters options={options} values={search} onChange={onFilter} />
      <p className="mb-2 text-xs text-slate-500" aria-live="polite">
        {error ? <span className="text-red-700">Could not refresh: {error.message}</span> : null}
        {!error && dataUpdatedAt ? `Live · refreshes every ${REFRESH_MS / 1000} s${isFetching ? " · updating…" : ""}` : null}
      </p>
      {!data && !error ? (
        <p className="text-sm text-slate-500">Loading tasks…</p>
      ) : data && data.items.length === 0 ? (
        <Empty>No tasks match these filters.</Empty>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
          <table className="min-w-full divide-y divide-slate-200 text-sm">
            <caption className="sr-only">Tasks, newest first</caption>
            <thead className="bg-slate-50 text-left text-xs font-semibold uppercase tracking-wide text-slate-500">
              <tr>
                <th scope="col" className="px-3 py-2">
                  Task
                </th>
                <th scope="col" className="px-3 py-2">
                  Route
                </th>
                <th scope="col" className="px-3 py-2">
                  Status
                </th>
                <th scope="col" className="hidden px-3 py-2 md:table-cell">
                  Why
                </th>
                <th scope="col" className="hidden px-3 py-2 lg:table-cell">
                  Progress
                </th>
                <th scope="col" className="px-3 py-2">
                  Created
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {data?.items.map((task) => (
                <tr key={task.id} data-task-id={task.id} className="hover:bg-slate-50">
                  <td className="px-3 py-2">
                    <Link href={`/tasks/${task.id}`} className="font-mono text-indigo-700 hover:underline" title={task.id}>
                      {task.id.slice(0, 8)}
                    </Link>
                  </td>
                  <td className="px-3 py-2">
                    <span className="text-slate-500">{task.tenantSlug}/</span>
                    {task.tool ?? task.workflowKey}
                  </td>
                  <td className="px-3 py-2" data-testid="task-status">
                    <StatusBadge status={task.status} />
                  </td>
                  <td className="hidden max-w-md px-3 py-2 text-slate-600 md:table-cell">
                    {diagnoseTask(task, data.workers, now).headline}
                  </td>
                  <td className="hidden px-3 py-2 lg:table-cell">
                    <ProgressBar progress={task.progress} compact />
                  </td>
                  <td className="whitespace-nowrap px-3 py-2 text-slate-600">
                    <Time iso={task.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav aria-label="Pages" className="mt-3 flex gap-2">
        <button type="button" className={secondaryButtonClass} disabled={!search.get("cursor")} onClick={goNewer}>
          ← Newer
        </button>
        <button
          type="button"
          className={secondaryButtonClass}
          disabled={!data?.next}
          onClick={() => data?.next && goOlder(data.next)}
        >
          Older →
        </button>
      </nav>
    </div>
  );
}
