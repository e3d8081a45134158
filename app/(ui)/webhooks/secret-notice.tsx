"use client";

import { useState } from "react";
import { secondaryButtonClass } from "../_components/ui";

/** The signing secret, shown once: the store keeps it sealed and the console never shows it again. */
export function SecretNotice({ secret, onDone }: { secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div role="status" className="mb-4 rounded-md border border-amber-300 bg-amber-50 p-3">
      <p className="text-sm font-medium text-amber-900">Copy this signing secret now. It will not be shown again.</p>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <code data-testid="webhook-secret" className="min-w-0 flex-1 break-all rounded bg-white px-2 py-1 font-mono text-xs">
          {secret}
        </code>
        <button
          type="button"
          className={secondaryButtonClass}
          onClick={() =>
            void navigator.clipboard?.writeText(secret).then(
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
