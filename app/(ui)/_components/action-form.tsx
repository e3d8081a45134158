"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, type ReactNode, useState, useTransition } from "react";

type Result = { ok: true; data: unknown } | { ok: false; error: string };

/**
 * A small form that sends its named fields to a server action, shows the action's error inline
 * and refreshes the page on success. `toInput` shapes FormData into the action's input.
 */
export function ActionForm({
  action,
  toInput,
  children,
  className = "",
  onSuccess,
  label,
}: {
  action: (input: never) => Promise<Result>;
  toInput: (data: FormData) => unknown;
  children: ReactNode;
  className?: string;
  onSuccess?: (data: unknown) => void;
  label: string;
}) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, start] = useTransition();
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    start(async () => {
      const result = await action(toInput(data) as never);
      if (!result.ok) return setError(result.error);
      setError(null);
      form.reset();
      onSuccess?.(result.data);
      router.refresh();
    });
  };
  return (
    <form onSubmit={onSubmit} aria-label={label} aria-busy={pending} className={className}>
      <fieldset disabled={pending} className="contents">
        {children}
      </fieldset>
      {error && (
        <p role="alert" className="basis-full text-sm text-red-700">
          {error}
        </p>
      )}
    </form>
  );
}
