"use client";

import { useState } from "react";
import { secondaryButtonClass } from "./ui";

/**
 * A secret shown once (a new API key, a webhook signing secret): the store keeps only its hash or a
 * sealed copy, so the console can never show it again. Copy and Done; `what` names it in the warning.
 */
export function ShownOnce({ value, what, testId, onDone }: { value: string; what: string; testId: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div role="status" className="mb-4 rounded-md border border-amber-300 bg-amber-50 p-3">
      <p className="text-sm font-medium text-amber-900">Copy this {what} now. It will not be shown again.</p>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <code data-testid={testId} className="min-w-0 flex-1 break-all rounded bg-white px-2 py-1 font-mono text-xs">
          {value}
        </code>
        <button
          type="button"
          className={secondaryButtonClass}
          onClick={() =>
            void navigator.clipboard?.writeText(value).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          {copied ? "Copied" : "Copy"}
        </button>
        <button type="button" className={secondaryButtonClass} onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
