import type { Diagnosis } from "@/lib/tasks";

const TONE: Record<Diagnosis["tone"], string> = {
  ok: "border-emerald-200 bg-emerald-50 text-emerald-900",
  info: "border-sky-200 bg-sky-50 text-sky-900",
  warn: "border-amber-200 bg-amber-50 text-amber-900",
  error: "border-red-200 bg-red-50 text-red-900",
};

/** The plain-language "why is it here" line (see lib/tasks/diagnose-task.ts and docs/troubleshooting.md). */
export function DiagnosisPanel({ diagnosis }: { diagnosis: Diagnosis }) {
  return (
    <section aria-labelledby="diagnosis-title" className={`rounded-lg border p-4 ${TONE[diagnosis.tone]}`}>
      {/* Full tone colour, not faded: at 70% opacity the small text fell below a 4.5:1 contrast. */}
      <h2 id="diagnosis-title" className="text-xs font-semibold uppercase tracking-wide">
        Diagnosis
      </h2>
      <p className="mt-1 font-medium" data-testid="diagnosis" aria-live="polite">
        {diagnosis.headline}
      </p>
      {diagnosis.notes.length > 0 && (
        <ul className="mt-2 list-disc pl-5 text-sm">
          {diagnosis.notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      )}
      {/* Review F20: "what to do" under a task that completed fine was noise. */}
      {diagnosis.tone !== "ok" && (
        <p className="mt-2 text-xs">What to do: see “{diagnosis.code}” in the troubleshooting guide (docs/troubleshooting.md).</p>
      )}
    </section>
  );
}
