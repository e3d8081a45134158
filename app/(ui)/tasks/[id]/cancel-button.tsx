"use client";

import { cancelTaskForm } from "../../actions";
import { ConfirmDisclosure } from "./confirm-disclosure";

/** Two-step cancel (ask, then confirm) so a stray click or Enter cannot cancel work; a POST, so it works before scripts load. */
export function CancelButton({ taskId, onCancelled }: { taskId: string; onCancelled: () => void }) {
  return (
    <ConfirmDisclosure
      taskId={taskId}
      action={cancelTaskForm}
      label="Confirm cancel"
      ask="Cancel task"
      back="Keep running"
      question="Cancel this task?"
      confirm="Yes, cancel"
      working="Cancelling…"
      danger
      onSuccess={onCancelled}
    />
  );
}
