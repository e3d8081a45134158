"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { RowSelectionState } from "@tanstack/react-table";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useMemo, useState } from "react";
import { diagnoseTask } from "@/lib/tasks/client";
import type { TaskListPage } from "@/lib/ui/presenters/task-list";
import { fetchJson } from "@/lib/ui/query-client";
import { Empty, secondaryButtonClass } from "../_components/ui";
import { BulkActions } from "./bulk-actions";
import { type FilterOptions, TaskFilters } from "./task-filters";
import { TaskTable, type TaskTableRow } from "./task-table";

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
  // Selected task IDs; cleared when the filters or the page change, so an action only ever applies
  // to rows the operator can see.
  const [selection, setSelection] = useState<RowSelectionState>({});
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
    setSelection({});
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
  const rows = useMemo<TaskTableRow[]>(
    () =>
      data
        ? data.items.map((task) => ({ ...task, why: diagnoseTask(task, data.workers, new Date(data.serverNow)).headline }))
        : [],
    [data],
  );

  return (
    <div>
      <TaskFilters options={options} values={search} onChange={onFilter} inputError={data?.inputFilterError} />
      <p className="mb-2 text-xs text-slate-500" aria-live="polite">
        {error ? <span className="text-red-700">Could not refresh: {error.message}</span> : null}
        {!error && dataUpdatedAt ? `Live · refreshes every ${REFRESH_MS / 1000} s${isFetching ? " · updating…" : ""}` : null}
      </p>
      <BulkActions selected={Object.keys(selection)} onDone={() => setSelection({})} />
      {!data && !error ? (
        <p className="text-sm text-slate-500">Loading tasks…</p>
      ) : data && data.items.length === 0 ? (
        <Empty>No tasks match these filters.</Empty>
      ) : (
        <TaskTable rows={rows} selection={selection} onSelectionChange={setSelection} />
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
