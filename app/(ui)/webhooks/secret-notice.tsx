"use client";

import { ShownOnce } from "../_components/shown-once";

/** The signing secret, shown once: the store keeps it sealed and the console never shows it again. */
export function SecretNotice({ secret, onDone }: { secret: string; onDone: () => void }) {
  return <ShownOnce value={secret} what="signing secret" testId="webhook-secret" onDone={onDone} />;
}
