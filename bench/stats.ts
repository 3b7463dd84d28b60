// Benchmark arithmetic and formatting: medians, repeated timing, ratios and unit-bearing values (pure, no I/O).

export interface Sample {
  /** Median of the measured iterations. */
  median: number;
  min: number;
  max: number;
  iterations: number;
}

export interface MeasureOptions {
  /** Runs thrown away first, so JIT, worker and cache start-up costs stay out of the median. */
  warmup: number;
  iterations: number;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median: values must hold at least one number');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const hi = sorted[mid] ?? 0;
  return sorted.length % 2 === 1 ? hi : ((sorted[mid - 1] ?? hi) + hi) / 2;
}

export function summarize(values: readonly number[]): Sample {
  if (values.length === 0) throw new RangeError('summarize: values must hold at least one number');
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), iterations: values.length };
}

/** Times `fn` (ms, high-resolution clock); warm-up runs are not recorded. */
export async function measure(fn: () => Promise<unknown> | unknown, opts: MeasureOptions): Promise<Sample> {
  return (await measureInterleaved({ only: fn }, opts)).only;
}

/**
 * Times several functions in turn, one call of each per iteration, rotating which goes first.
 * On a shared machine the load drifts; interleaving makes every side see the same drift, so the
 * ratio between them holds even when the absolute times wander.
 */
export async function measureInterleaved<K extends string>(fns: Record<K, () => Promise<unknown> | unknown>, opts: MeasureOptions): Promise<Record<K, Sample>> {
  const timed = Object.fromEntries(
    (Object.entries(fns) as Array<[K, () => Promise<unknown> | unknown]>).map(([key, fn]) => [
      key,
      async () => {
        const t0 = performance.now();
        await fn();
        return { ms: performance.now() - t0 };
      },
    ]),
  ) as Record<K, () => Promise<Record<'ms', number>>>;
  const out = await collectInterleaved(timed, opts);
  return Object.fromEntries((Object.entries(out) as Array<[K, Record<'ms', Sample>]>).map(([key, v]) => [key, v.ms])) as Record<K, Sample>;
}

/** Collects named numbers per iteration from `fn` itself (telemetry, byte counts), after warm-up. */
export async function collect<F extends string>(fn: () => Promise<Record<F, number>>, opts: MeasureOptions): Promise<Record<F, Sample>> {
  return (await collectInterleaved({ only: fn }, opts)).only;
}

/** collect() for several functions, interleaved as in measureInterleaved(). */
export async function collectInterleaved<K extends string, F extends string>(
  fns: Record<K, () => Promise<Record<F, number>>>,
  opts: MeasureOptions,
): Promise<Record<K, Record<F, Sample>>> {
  checkCounts(opts);
  const keys = Object.keys(fns) as K[];
  if (keys.length === 0) throw new RangeError('collectInterleaved: pass at least one function to measure');
  const values = new Map<K, Map<F, number[]>>(keys.map((k) => [k, new Map()]));
  for (let i = 0; i < opts.warmup + opts.iterations; i++) {
    const order = keys.map((_, j) => keys[(i + j) % keys.length] as K);
    for (const key of order) {
      const record = await fns[key]();
      if (i < opts.warmup) continue;
      const byField = values.get(key) ?? new Map<F, number[]>();
      for (const [field, value] of Object.entries(record) as Array<[F, number]>) {
        const list = byField.get(field) ?? [];
        list.push(value);
        byField.set(field, list);
      }
      values.set(key, byField);
    }
  }
  return Object.fromEntries(
    [...values].map(([key, byField]) => [key, Object.fromEntries([...byField].map(([field, list]) => [field, summarize(list)]))]),
  ) as Record<K, Record<F, Sample>>;
}

function checkCounts(opts: MeasureOptions): void {
  if (!Number.isInteger(opts.warmup) || opts.warmup < 0) throw new RangeError(`warmup must be an integer >= 0, got ${opts.warmup}`);
  if (!Number.isInteger(opts.iterations) || opts.iterations < 1) {
    throw new RangeError(`iterations must be an integer >= 1, got ${opts.iterations}`);
  }
}

/** `a / b` as "12.3x"; blank when either side is missing or `b` is not positive. */
export function ratio(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b <= 0) return '';
  const r = a / b;
  return `${r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(1) : r.toFixed(2)}x`;
}

/** Milliseconds with a unit that keeps three significant digits (µs below 1 ms). */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (Math.abs(ms) < 1) return `${sig(ms * 1000)} µs`;
  if (Math.abs(ms) >= 1000) return `${sig(ms / 1000)} s`;
  return `${sig(ms)} ms`;
}

export function formatUs(us: number): string {
  return formatMs(us / 1000);
}

/** Bytes in binary units (KiB, MiB); signed, because memory deltas can be negative. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return String(bytes);
  const abs = Math.abs(bytes);
  if (abs < 1024) return `${Math.round(bytes)} B`;
  if (abs < 1024 * 1024) return `${sig(bytes / 1024)} KiB`;
  if (abs < 1024 * 1024 * 1024) return `${sig(bytes / (1024 * 1024))} MiB`;
  return `${sig(bytes / (1024 * 1024 * 1024))} GiB`;
}

function sig(n: number): string {
  const abs = Math.abs(n);
  return abs >= 100 ? n.toFixed(0) : abs >= 10 ? n.toFixed(1) : n.toFixed(2);
}
