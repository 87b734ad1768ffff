/**
 * The per-10-second buckets lib/observe.lua writes, read back for charts: throughput and how late
 * jobs started. Percentiles come from the bucket histograms, so they are upper bounds of a bucket.
 */
export const SERIES = {
  bucketMs: 10_000,
  /** Buckets older than this are deleted by the Scheduler's retention loop. */
  retentionMs: 3 * 3_600_000,
  latenessBounds: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 5000, 30000] as const,
  counters: ['added', 'completed', 'failed', 'dead', 'reclaimed'] as const,
};

export const SERIES_FIELDS: readonly string[] = [
  ...SERIES.counters,
  'lateMax',
  ...SERIES.latenessBounds.map((b) => `late:${b}`),
  'late:inf',
];

export interface SeriesPoint {
  /** Start of the step, ms since the epoch (Redis time). */
  t: number;
  added: number;
  completed: number;
  failed: number;
  dead: number;
  reclaimed: number;
  /** Start − due of the jobs that started in this step, ms; null when none started. */
  lateness: { count: number; p50: number; p99: number; max: number } | null;
}

export interface Series {
  stepMs: number;
  points: SeriesPoint[];
}

function percentile(histogram: number[], total: number, p: number, max: number): number {
  const rank = Math.ceil(p * total);
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i] ?? 0;
    if (seen >= rank) return Math.min(SERIES.latenessBounds[i] ?? max, max);
  }
  return max;
}

/** Sums buckets into steps of `stepMs` (a multiple of the bucket size). `values` follows the field order. */
export function aggregate(
  buckets: readonly number[],
  values: readonly (string | null)[],
  stepMs: number,
): Series {
  const perBucket = SERIES_FIELDS.length;
  const points = new Map<number, { sums: number[]; max: number }>();
  buckets.forEach((bucket, b) => {
    const t = bucket - (bucket % stepMs);
    let point = points.get(t);
    if (!point) {
      point = { sums: new Array(perBucket).fill(0), max: 0 };
      points.set(t, point);
    }
    for (let f = 0; f < perBucket; f++) {
      const value = Number(values[b * perBucket + f] ?? 0) || 0;
      if (SERIES_FIELDS[f] === 'lateMax') point.max = Math.max(point.max, value);
      else point.sums[f] = (point.sums[f] ?? 0) + value;
    }
  });
  const lateStart = SERIES.counters.length + 1;
  return {
    stepMs,
    points: [...points.entries()].map(([t, { sums, max }]) => {
      const histogram = sums.slice(lateStart);
      const count = histogram.reduce((a, b) => a + b, 0);
      const [added, completed, failed, dead, reclaimed] = sums as [number, number, number, number, number];
      return {
        t,
        added,
        completed,
        failed,
        dead,
        reclaimed,
        lateness:
          count === 0
            ? null
            : {
                count,
                p50: percentile(histogram, count, 0.5, max),
                p99: percentile(histogram, count, 0.99, max),
                max,
              },
      };
    }),
  };
}
