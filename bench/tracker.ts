/** Counts runs per job index, and how late each started: every run checks that each job ran exactly once. */
export class Tracker {
  private readonly runs: Uint8Array;
  readonly lateness: number[] = [];
  private seen = 0;
  private firstAt = 0;
  private doneAt = 0;
  private finish!: () => void;
  readonly done: Promise<void>;

  constructor(readonly total: number) {
    this.runs = new Uint8Array(total);
    this.done = new Promise((resolve) => {
      this.finish = resolve;
    });
  }

  /** The wall clock with sub-millisecond resolution. */
  static now(): number {
    return performance.timeOrigin + performance.now();
  }

  record(i: number, dueAt: number, measureLateness: boolean): void {
    const now = Tracker.now();
    if (this.firstAt === 0) this.firstAt = now;
    if (measureLateness) this.lateness.push(now - dueAt);
    const runs = this.runs[i] ?? 0;
    this.runs[i] = runs + 1;
    if (runs === 0 && ++this.seen === this.total) {
      this.doneAt = now;
      this.finish();
    }
  }

  get lastRunAt(): number {
    return this.doneAt;
  }

  /** Jobs per second from the first run to the last: the drain rate, without start-up. */
  get drainRate(): number {
    return this.doneAt > this.firstAt ? ((this.total - 1) * 1000) / (this.doneAt - this.firstAt) : Number.NaN;
  }

  /** Jobs that ran more than once, and jobs that never ran. */
  check(): { duplicates: number; missing: number } {
    let duplicates = 0;
    let missing = 0;
    for (const n of this.runs) {
      if (n === 0) missing++;
      else if (n > 1) duplicates += n - 1;
    }
    return { duplicates, missing };
  }
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] as number;
}

export function summary(values: number[]): { p50: number; p99: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}
