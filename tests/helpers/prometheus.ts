/**
 * Reading a Prometheus text-format scrape in a test: the samples by name and labels, so assertions
 * name the series they expect instead of matching text.
 */
export type Sample = { name: string; labels: Record<string, string>; value: number };

export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[pair[1] as string] = (pair[2] as string).replace(/\\(.)/g, "$1");
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample with this name whose labels include `labels`; undefined when there is none. */
export function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = parseSamples(text).filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

/** The families (`# TYPE` lines) a scrape declares, with their types. */
export function familyTypes(text: string): Record<string, string> {
  const types: Record<string, string> = {};
  for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) types[match[1] as string] = match[2] as string;
  return types;
}
