"use client";

import { useEffect, useState } from "react";
import { localTimeText, utcTimeText } from "@/lib/ui/presenters/time-text";

/**
 * An instant in the reader's own locale and time zone, the zone named. The server knows neither, so
 * the first render — the HTML shown before scripts run — is the unambiguous UTC form; the browser
 * swaps in its own once hydrated. The title always holds the ISO instant.
 */
export function LocalTime({ iso }: { iso: string }) {
  const [text, setText] = useState(() => utcTimeText(iso));
  useEffect(() => setText(localTimeText(iso)), [iso]);
  return (
    <time dateTime={iso} title={iso}>
      {text}
    </time>
  );
}
