import Link from "next/link";

const short = (id: string) => id.slice(0, 8);

type One = { label: string; testId: string; id: string | null };
type Many = { label: string; testId: string; ids: string[] };

/**
 * A line of links to tasks related to this one — one task ("Rerun of …", "Child of …") and a list
 * ("Rerun as …", "Children …") — each shown by its ID's first 8 characters, the whole ID as the title.
 */
export function LinkedTasks({ one, many }: { one: One; many: Many }) {
  if (!one.id && many.ids.length === 0) return null;
  const link = (id: string) => (
    <Link key={id} href={`/tasks/${id}`} className="font-mono text-indigo-700 hover:underline" title={id}>
      {short(id)}
    </Link>
  );
  return (
    <p className="flex flex-wrap gap-x-4 gap-y-1 text-sm text-slate-600">
      {one.id && (
        <span data-testid={one.testId}>
          {one.label} {link(one.id)}
        </span>
      )}
      {many.ids.length > 0 && (
        <span data-testid={many.testId}>
          {many.label}{" "}
          {many.ids.map((id, i) => (
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
