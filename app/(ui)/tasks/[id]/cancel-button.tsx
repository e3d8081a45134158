"use client";

import { useState, useTransition } from "react";
import { dangerButtonClass } from "../../_components/ui";
import { cancelTask } from "../../actions";

/** Two-step cancel (ask, then confirm) so a stray click or Enter cannot cancel work. */
export function CancelButton({ taskId, onDone }: { taskId: string; onDone: (error: string | null) => void }) {
  const [confirming, setConfirming] = useState(false);
  const [pending, start] = useTransition();
  if (!confirming) {
    return (
      <button type="button" className={dangerButtonClass} onClick={() => setConfirming(true)}>
        Cancel task
      </button>
    );
  }
  return (
    <fieldset aria-label="Confirm cancel" className="flex items-center gap-2">
      <span className="text-sm text-slate-700">Cancel this task?</span>
      <button
        type="button"
        className={dangerButtonClass}
        disabled={pending}
        onClick={() =>
          start(async () => {
            const result = await cancelTask({ taskId });
            setConfirming(false);
            onDone(result.ok ? null : result.error);
          })
        }
      >
        {pending ? "Cancelling…" : "Yes, cancel"}
      </button>
      <button type="button" className="text-sm text-slate-600 hover:underline" onClick={() => setConfirming(false)}>
        Keep running
      </button>
    </fieldset>
  );
}
