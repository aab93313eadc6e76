/** Reads a service's /metrics on its ops port (deploy/local/services.sh's ports) as samples. */
export const OPS_PORTS = { gateway: 9400, inventory: 9401, orders: 9402, tickets: 9403, webhooks: 9404 } as const;

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text format (what prom-client writes: no timestamps, escaped label values). */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

export async function scrape(service: keyof typeof OPS_PORTS): Promise<Sample[]> {
  const response = await fetch(`http://127.0.0.1:${OPS_PORTS[service]}/metrics`);
  if (response.status !== 200) throw new Error(`${service} /metrics answered ${response.status}`);
  return parseMetrics(await response.text());
}

/** The sum of every sample named `name` whose labels include `labels` (0 when none). */
export function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}
