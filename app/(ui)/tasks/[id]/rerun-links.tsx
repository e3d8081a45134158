import Link from "next/link";

const short = (id: string) => id.slice(0, 8);

/** "Rerun of …" / "Rerun as …": the links the two runs' histories record (lib/tasks/rerun-task.ts). */
export function RerunLinks({ rerunOf, rerunAs }: { rerunOf: string | null; rerunAs: string[] }) {
  if (!rerunOf && rerunAs.length === 0) return null;
  const link = (id: string) => (
    <Link key={id} href={`/tasks/${id}`} className="font-mono text-indigo-700 hover:underline" title={id}>
      {short(id)}
    </Link>
  );
  return (
    <p className="flex flex-wrap gap-x-4 gap-y-1 text-sm text-slate-600">
      {rerunOf && <span data-testid="rerun-of">Rerun of {link(rerunOf)}</span>}
      {rerunAs.length > 0 && (
        <span data-testid="rerun-as">
          Rerun as{" "}
          {rerunAs.map((id, i) => (
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
