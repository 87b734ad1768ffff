import { Cron } from 'croner';

/** What the fire-time arithmetic needs of a schedule. */
export interface Timing {
  cron?: string;
  tz?: string;
  /** Interval in ms, for `every` schedules. */
  everyMs?: number;
  /** `every` fires at anchor + k·every (k ≥ 1, or ≥ 0 when startAt set the anchor). */
  anchor: number;
  startAt?: number;
  endAt?: number;
}

const crons = new Map<string, Cron>();

/** One paused Cron per pattern and zone, reused: croner only computes here, it never runs anything. */
function cronOf(pattern: string, tz: string | undefined): Cron {
  const key = `${tz ?? ''}\u0000${pattern}`;
  let cron = crons.get(key);
  if (!cron) {
    cron = new Cron(pattern, { paused: true, ...(tz ? { timezone: tz } : {}) });
    crons.set(key, cron);
  }
  return cron;
}

/** Throws croner's own message for a pattern or zone it cannot read. */
export function checkCron(pattern: string, tz: string | undefined): void {
  new Cron(pattern, { paused: true, ...(tz ? { timezone: tz } : {}) }).nextRun();
}

function bounded(t: number | undefined, timing: Timing): number | undefined {
  if (t === undefined) return undefined;
  return timing.endAt !== undefined && t > timing.endAt ? undefined : t;
}

/**
 * The first fire time at or after `t` (ms), or undefined when the schedule has none left.
 * Cron patterns follow croner's DST rules (Vixie cron): a fixed time that does not exist that day
 * runs at the first valid time after the gap; one that occurs twice runs once, the first time.
 */
export function fireAtOrAfter(timing: Timing, t: number): number | undefined {
  const from = timing.startAt !== undefined ? Math.max(t, timing.startAt) : t;
  if (timing.everyMs !== undefined) {
    const every = timing.everyMs;
    const first = timing.startAt !== undefined ? timing.anchor : timing.anchor + every;
    if (from <= first) return bounded(first, timing);
    return bounded(timing.anchor + Math.ceil((from - timing.anchor) / every) * every, timing);
  }
  const next = cronOf(timing.cron as string, timing.tz).nextRun(new Date(from - 1));
  return bounded(next?.getTime(), timing);
}

/** The fire time after `t` (strictly later). */
export function fireAfter(timing: Timing, t: number): number | undefined {
  return fireAtOrAfter(timing, t + 1);
}

/** The latest fire time at or before `t` that is not before `from`, if any. */
export function lastFireBetween(timing: Timing, from: number, t: number): number | undefined {
  if (timing.everyMs !== undefined) {
    const first = fireAtOrAfter(timing, from);
    if (first === undefined || first > t) return undefined;
    const last = timing.anchor + Math.floor((t - timing.anchor) / timing.everyMs) * timing.everyMs;
    return last >= first ? last : undefined;
  }
  const [previous] = cronOf(timing.cron as string, timing.tz).previousRuns(1, new Date(t + 1));
  const last = previous?.getTime();
  return last !== undefined && last >= from ? last : undefined;
}
