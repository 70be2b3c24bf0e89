/** A strict reader of the Prometheus text format, enough to check what the collector exposes. */
export interface ParsedMetric {
  help: string;
  type: string;
  samples: Array<{ labels: Record<string, string>; value: number }>;
}

export function parsePrometheus(text: string): Map<string, ParsedMetric> {
  if (!text.endsWith('\n')) throw new Error('exposition must end with a line feed');
  const metrics = new Map<string, ParsedMetric>();
  const metric = (name: string) => {
    let m = metrics.get(name);
    if (!m) metrics.set(name, (m = { help: '', type: '', samples: [] }));
    return m;
  };
  for (const line of text.slice(0, -1).split('\n')) {
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (meta) {
      if (meta[1] === 'HELP') metric(meta[2]!).help = meta[3]!.replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
      else metric(meta[2]!).type = meta[3]!;
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample) throw new Error(`not a valid exposition line: ${JSON.stringify(line)}`);
    const m = metrics.get(sample[1]!);
    if (!m?.type) throw new Error(`sample of ${sample[1]} before its TYPE line`);
    m.samples.push({ labels: parseLabels(sample[2] ?? ''), value: Number(sample[3]!.replace('+Inf', 'Infinity')) });
  }
  return metrics;
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  const pair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\["\\n])*)"(,|$)/y;
  let match: RegExpExecArray | null;
  while (pair.lastIndex < text.length && (match = pair.exec(text))) {
    labels[match[1]!] = match[2]!.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
  }
  if (pair.lastIndex !== text.length && text.length > 0) throw new Error(`bad label set: ${text}`);
  return labels;
}
