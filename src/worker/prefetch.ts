import type { ClaimedJob } from '../redis/store.js';

/** Finishes are counted over two windows of this length: the recent pace of the worker. */
const PACE_WINDOW_MS = 100;

/**
 * Jobs claimed ahead of free slots. Under load the next claim then runs in Redis while the worker
 * runs the jobs of the last, so neither waits for the other.
 *
 * Claiming ahead must never make a job wait behind slow ones, so the buffer only takes what the
 * worker is finishing anyway: at most as many jobs as finished in the last 100–200 ms. A worker
 * whose slots are all held by long or stuck jobs finishes nothing, takes nothing ahead, and other
 * workers get the queue's jobs. A job that still waits longer than `holdMs` (the pace dropped
 * after it was taken) is handed back to the queue through `onExpired`.
 */
export class PrefetchBuffer {
  private readonly waiting: { job: ClaimedJob; since: number }[] = [];
  private windowStart = 0;
  private finishedNow = 0;
  private finishedBefore = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly limit: number,
    private readonly holdMs: number,
    private readonly onExpired: (jobs: ClaimedJob[]) => void,
  ) {}

  get size(): number {
    return this.waiting.length;
  }

  /** How many more jobs it takes now. */
  room(): number {
    this.roll(performance.now());
    return Math.max(Math.min(this.limit, this.finishedNow + this.finishedBefore) - this.waiting.length, 0);
  }

  /** A slot freed up: counts toward the pace. */
  noteFinished(): void {
    this.roll(performance.now());
    this.finishedNow++;
  }

  push(job: ClaimedJob): void {
    this.waiting.push({ job, since: performance.now() });
    if (!this.timer) this.arm(this.holdMs);
  }

  shift(): ClaimedJob | undefined {
    return this.waiting.shift()?.job;
  }

  /** Takes one job out (it was cancelled or its lease was lost); undefined if it is not here. */
  remove(id: string): ClaimedJob | undefined {
    const i = this.waiting.findIndex((w) => w.job.id === id);
    return i < 0 ? undefined : this.waiting.splice(i, 1)[0]?.job;
  }

  jobs(): ClaimedJob[] {
    return this.waiting.map((w) => w.job);
  }

  /** Empties the buffer and stops its timer; returns what it held. */
  drain(): ClaimedJob[] {
    clearTimeout(this.timer);
    this.timer = undefined;
    return this.waiting.splice(0).map((w) => w.job);
  }

  private roll(now: number): void {
    const elapsed = now - this.windowStart;
    if (elapsed < PACE_WINDOW_MS) return;
    this.finishedBefore = elapsed < 2 * PACE_WINDOW_MS ? this.finishedNow : 0;
    this.finishedNow = 0;
    this.windowStart = now;
  }

  private arm(delayMs: number): void {
    this.timer = setTimeout(() => this.expire(), delayMs);
    this.timer.unref();
  }

  private expire(): void {
    this.timer = undefined;
    const cutoff = performance.now() - this.holdMs;
    let n = 0;
    while (n < this.waiting.length && (this.waiting[n]?.since ?? 0) <= cutoff) n++;
    if (n > 0) this.onExpired(this.waiting.splice(0, n).map((w) => w.job));
    const oldest = this.waiting[0];
    if (oldest) this.arm(Math.max(oldest.since + this.holdMs - performance.now(), 1));
  }
}
