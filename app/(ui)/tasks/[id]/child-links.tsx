import Link from "next/link";

const short = (id: string) => id.slice(0, 8);

/** "Child of …" / "Children …": the tasks ctx.child linked to this one (lib/tasks/queries/child-links.ts). */
export function ChildLinks({ parentTaskId, childTaskIds }: { parentTaskId: string | null; childTaskIds: string[] }) {
  if (!parentTaskId && childTaskIds.length === 0) return null;
  const link = (id: string) => (
    <Link key={id} href={`/tasks/${id}`} className="font-mono text-indigo-700 hover:underline" title={id}>
      {short(id)}
    </Link>
  );
  return (
    <p className="flex flex-wrap gap-x-4 gap-y-1 text-sm text-slate-600">
      {parentTaskId && <span data-testid="child-of">Child of {link(parentTaskId)}</span>}
      {childTaskIds.length > 0 && (
        <span data-testid="children">
          Children{" "}
          {childTaskIds.map((id, i) => (
            <span key={id}>
              {i > 0 && ", "}
              {link(id)}
            </span>
          ))}
        </span>
      )}
    </p>
  );
}
