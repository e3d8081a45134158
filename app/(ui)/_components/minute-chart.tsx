import type { ChartSeries } from "@/lib/ui/presenters/overview";

// A stacked bar chart of per-minute counts, one colour per route (plain SVG: no chart library).
const COLORS = ["#4f46e5", "#0891b2", "#16a34a", "#d97706", "#db2777", "#7c3aed", "#475569", "#dc2626"];
const W = 600;
const H = 160;
const PAD = { left: 28, bottom: 18, top: 6 };

export function routeColor(index: number): string {
  return COLORS[index % COLORS.length] as string;
}

export function MinuteChart({
  title,
  minutes,
  series,
  routes,
}: {
  title: string;
  minutes: string[];
  series: ChartSeries[];
  routes: string[];
}) {
  const totals = minutes.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const barW = (W - PAD.left) / minutes.length;
  const y = (value: number) => ((H - PAD.bottom - PAD.top) * value) / max;
  const sum = totals.reduce((a, b) => a + b, 0);
  const label = (iso: string | undefined) =>
    iso ? new Date(iso).toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" }) : "";
  return (
    <figure>
      <figcaption className="mb-1 text-sm font-medium text-slate-700">
        {title} <span className="font-normal text-slate-500">({sum} in the last hour)</span>
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${title}: ${sum} in the last hour`} className="h-auto w-full">
        {/* Axis and labels take palette classes (not hex) so they follow dark mode (app/globals.css). */}
        <line x1={PAD.left} x2={W} y1={H - PAD.bottom} y2={H - PAD.bottom} className="stroke-slate-300" />
        <text x={PAD.left - 4} y={PAD.top + 8} textAnchor="end" fontSize="10" className="fill-slate-500">
          {max}
        </text>
        <text x={PAD.left - 4} y={H - PAD.bottom} textAnchor="end" fontSize="10" className="fill-slate-500">
          0
        </text>
        {minutes.map((minute, i) => {
          let base = H - PAD.bottom;
          return (
            <g key={minute}>
              <title>{`${label(minute)}: ${totals[i]}`}</title>
              {series.map((s) => {
                const value = s.values[i] ?? 0;
                if (!value) return null;
                const h = y(value);
                base -= h;
                return (
                  <rect
                    key={s.route}
                    x={PAD.left + i * barW + 0.5}
                    y={base}
                    width={Math.max(1, barW - 1)}
                    height={h}
                    fill={routeColor(routes.indexOf(s.route))}
                  />
                );
              })}
            </g>
          );
        })}
        {[0, 15, 30, 45, 59].map((i) => (
          <text
            key={i}
            x={i === 59 ? W : PAD.left + i * barW + barW / 2}
            y={H - 4}
            textAnchor={i === 59 ? "end" : "middle"}
            fontSize="10"
            className="fill-slate-500"
            suppressHydrationWarning
          >
            {label(minutes[i])}
          </text>
        ))}
      </svg>
    </figure>
  );
}
