import Link from "next/link";
import type { DeliveryItem } from "@/lib/ui/presenters/webhooks";
import { Empty, Time } from "../_components/ui";
import { ResendButton } from "./resend-button";

const STATUS_CLASS: Record<string, string> = {
  delivered: "bg-emerald-50 text-emerald-800",
  failed: "bg-red-50 text-red-800",
  retrying: "bg-amber-50 text-amber-800",
  pending: "bg-slate-100 text-slate-700",
};

/** The newest deliveries of one subscription: event, task, outcome, attempts (each one listed), last error, Resend when failed. */
export function DeliveryLog({
  deliveries,
  tenantId,
  subscriptionId,
}: {
  deliveries: DeliveryItem[];
  tenantId: string;
  subscriptionId: string;
}) {
  if (deliveries.length === 0) return <Empty>No deliveries yet.</Empty>;
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Deliveries, newest first</caption>
        <thead className="text-xs uppercase text-slate-500">
          <tr>
            <th scope="col" className="py-1 pr-3">
              When
            </th>
            <th scope="col" className="py-1 pr-3">
              Event
            </th>
            <th scope="col" className="py-1 pr-3">
              Task
            </th>
            <th scope="col" className="py-1 pr-3">
              Status
            </th>
            <th scope="col" className="py-1 pr-3">
              HTTP
            </th>
            <th scope="col" className="py-1 pr-3">
              Attempts
            </th>
            <th scope="col" className="py-1">
              Last error
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {deliveries.map((d) => (
            <tr key={d.id} data-delivery-id={d.id} data-status={d.status}>
              <td className="whitespace-nowrap py-1 pr-3">
                <Time iso={d.lastAttemptAt ?? d.createdAt} />
              </td>
              <td className="py-1 pr-3 font-mono text-xs">{d.event}</td>
              <td className="py-1 pr-3 font-mono text-xs">
                {d.taskId ? (
                  <Link href={`/tasks/${d.taskId}`} className="text-indigo-700 hover:underline">
                    {d.taskId.slice(0, 8)}
                  </Link>
                ) : (
                  "—"
                )}
              </td>
              <td className="py-1 pr-3">
                <span className={`rounded px-1.5 py-0.5 text-xs font-medium ${STATUS_CLASS[d.status] ?? STATUS_CLASS.pending}`}>
                  {d.status}
                </span>
                {d.runId && (
                  <Link href={`/tasks/${d.runId}`} className="ml-2 text-xs text-slate-500 hover:underline">
                    run
                  </Link>
                )}
              </td>
              <td className="py-1 pr-3 font-mono text-xs">{d.lastStatusCode ?? "—"}</td>
              <td className="py-1 pr-3 text-xs">
                {d.attempts === 0 ? (
                  "0"
                ) : (
                  <details>
                    <summary className="cursor-pointer">{d.attempts}</summary>
                    <ol className="mt-1 list-decimal pl-5 text-slate-600">
                      {d.attemptLog.map((attempt) => (
                        <li key={attempt.at}>
                          <Time iso={attempt.at} /> · {attempt.statusCode ?? "no answer"}
                          {attempt.error ? ` · ${attempt.error}` : ""}
                        </li>
                      ))}
                    </ol>
                  </details>
                )}
              </td>
              <td className="max-w-md break-words py-1 text-xs text-slate-600">
                {d.lastError ?? "—"}
                {d.status === "failed" && <ResendButton tenantId={tenantId} subscriptionId={subscriptionId} deliveryId={d.id} />}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
