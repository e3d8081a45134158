"use client";

import { createColumnHelper, type RowSelectionState, rowSelectionFeature, tableFeatures, useTable } from "@tanstack/react-table";
import Link from "next/link";
import { type Dispatch, type SetStateAction, useEffect, useRef } from "react";
import type { TaskListItem } from "@/lib/ui/presenters/task-list";
import { ProgressBar } from "../_components/progress-bar";
import { StatusBadge, Time } from "../_components/ui";

/** A list row with the diagnosis headline already computed (in the browser's zone, by the list). */
export type TaskTableRow = TaskListItem & { why: string };

// Module scope: TanStack Table rebuilds its models whenever features or columns change identity.
const features = tableFeatures({ rowSelectionFeature });
const column = createColumnHelper<typeof features, TaskTableRow>();

/** A checkbox whose third state ("some rows selected") is set through the DOM, as HTML only allows. */
function Checkbox({ indeterminate = false, ...props }: React.ComponentProps<"input"> & { indeterminate?: boolean }) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = indeterminate && !props.checked;
  }, [indeterminate, props.checked]);
  return <input ref={ref} type="checkbox" className="size-4 rounded border-slate-300 text-indigo-600" {...props} />;
}

/** A failed task's stored cause beside its status, one line, cut short (the whole cause is on the task page). */
function FailureCause({ cause }: { cause: TaskListItem["failureCause"] }) {
  if (!cause) return null;
  const text = cause.message ? `${cause.code}: ${cause.message}` : cause.code;
  return (
    <span data-testid="failure-cause" title={text} className="mt-1 block max-w-56 truncate text-xs text-red-800">
      {text}
    </span>
  );
}

const columns = column.columns([
  column.display({
    id: "select",
    header: ({ table }) => (
      <Checkbox
        aria-label="Select all tasks on this page"
        checked={table.getIsAllPageRowsSelected()}
        indeterminate={table.getIsSomePageRowsSelected()}
        onChange={table.getToggleAllPageRowsSelectedHandler()}
      />
    ),
    cell: ({ row }) => (
      <Checkbox
        aria-label={`Select task ${row.original.id}`}
        checked={row.getIsSelected()}
        onChange={row.getToggleSelectedHandler()}
      />
    ),
  }),
  column.accessor("id", {
    header: "Task",
    cell: ({ row }) => (
      <Link href={`/tasks/${row.original.id}`} className="font-mono text-indigo-700 hover:underline" title={row.original.id}>
        {row.original.id.slice(0, 8)}
      </Link>
    ),
  }),
  column.accessor("tool", {
    header: "Route",
    cell: ({ row }) => (
      <>
        <span className="text-slate-500">{row.original.tenantSlug}/</span>
        {row.original.tool ?? row.original.workflowKey}
        {/* The exact version a run is pinned to (review F25: it matters right after a version bump). */}
        {row.original.tool && (
          <span data-testid="workflow-version" className="block text-xs text-slate-500">
            {row.original.workflowKey}
          </span>
        )}
      </>
    ),
  }),
  column.accessor("status", {
    header: "Status",
    cell: ({ row }) => (
      <>
        <span data-testid="task-status">
          <StatusBadge status={row.original.status} />
        </span>
        <FailureCause cause={row.original.failureCause} />
      </>
    ),
  }),
  column.accessor("why", { header: "Why" }),
  column.accessor("progress", {
    header: "Progress",
    cell: ({ row }) => <ProgressBar progress={row.original.progress} compact />,
  }),
  column.accessor("createdAt", { header: "Created", cell: ({ row }) => <Time iso={row.original.createdAt} /> }),
]);

/** Per-column cell classes (the narrow layout drops "Why" and "Progress" first). */
const CELL_CLASS: Record<string, string> = {
  select: "w-8 px-3 py-2",
  id: "px-3 py-2",
  tool: "px-3 py-2",
  status: "px-3 py-2",
  why: "hidden max-w-md px-3 py-2 text-slate-600 md:table-cell",
  progress: "hidden px-3 py-2 lg:table-cell",
  createdAt: "whitespace-nowrap px-3 py-2 text-slate-600",
};

/**
 * The task list's table: TanStack Table (headless) owns the columns and the row selection, keyed
 * by task ID (`getRowId`), so a row stays selected across the list's 2-second refreshes; the markup
 * and its accessibility stay ours.
 */
export function TaskTable(props: {
  rows: TaskTableRow[];
  selection: RowSelectionState;
  onSelectionChange: Dispatch<SetStateAction<RowSelectionState>>;
}) {
  const table = useTable({
    features,
    columns,
    data: props.rows,
    getRowId: (row) => row.id,
    state: { rowSelection: props.selection },
    onRowSelectionChange: props.onSelectionChange,
  });
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
      <table className="min-w-full divide-y divide-slate-200 text-sm">
        <caption className="sr-only">Tasks, newest first</caption>
        <thead className="bg-slate-50 text-left text-xs font-semibold uppercase tracking-wide text-slate-500">
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <th key={header.id} scope="col" className={CELL_CLASS[header.column.id]}>
                  {header.isPlaceholder ? null : <table.FlexRender header={header} />}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody className="divide-y divide-slate-100">
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id} data-task-id={row.id} className={row.getIsSelected() ? "bg-indigo-50/60" : "hover:bg-slate-50"}>
              {row.getAllCells().map((cell) => (
                <td key={cell.id} className={CELL_CLASS[cell.column.id]}>
                  <table.FlexRender cell={cell} />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
