export function ProgressBar({
  progress,
  compact = false,
}: {
  progress: { progress: number; total?: number; message?: string } | null;
  compact?: boolean;
}) {
  if (!progress) return null;
  const pct = progress.total ? Math.min(100, Math.round((progress.progress / progress.total) * 100)) : undefined;
  const text = progress.total ? `${progress.progress} of ${progress.total}` : `${progress.progress}`;
  return (
    <div className="min-w-24">
      <div
        role="progressbar"
        aria-label="Progress"
        aria-valuemin={0}
        aria-valuemax={progress.total ?? undefined}
        aria-valuenow={progress.progress}
        aria-valuetext={`${text}${progress.message ? `: ${progress.message}` : ""}`}
        className={`overflow-hidden rounded-full bg-slate-200 ${compact ? "h-1.5" : "h-2.5"}`}
      >
        <div
          className="h-full rounded-full bg-indigo-600 transition-all"
          style={{ width: `${pct ?? 100}%`, opacity: pct === undefined ? 0.4 : 1 }}
        />
      </div>
      {!compact && (
        <p className="mt-1 text-xs text-slate-600">
          {text}
          {progress.message ? ` · ${progress.message}` : ""}
        </p>
      )}
    </div>
  );
}
