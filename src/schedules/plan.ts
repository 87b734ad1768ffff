import { SCHEDULES } from '../defaults.js';
import { fireAfter, fireAtOrAfter, lastFireBetween, type Timing } from './fire-times.js';

export type CatchUp = 'none' | 'one' | 'all';

/** What one pass of the materializer does for one schedule. */
export interface FirePlan {
  /** Fire times to create occurrences for, oldest first. */
  fires: number[];
  /** The first fire time not created yet; undefined when the schedule has no more. */
  next: number | undefined;
  /** Missed fire times dropped by the catch-up policy. */
  skipped: number;
}

/**
 * Which occurrences to create now. Occurrences are made `lookaheadMs` ahead of their fire time,
 * so workers run them on time like any delayed job. A fire time already more than
 * `missedAfterMs` past was missed (no scheduler ran): `catchUp` decides — 'none' drops them,
 * 'one' runs the latest of them once, 'all' runs each (at most `maxCatchUp` per pass).
 */
export function planFires(
  timing: Timing,
  next: number | undefined,
  catchUp: CatchUp,
  now: number,
  options: {
    lookaheadMs: number;
    missedAfterMs: number;
    maxCatchUp: number;
    remaining: number | undefined;
  } = {
    ...SCHEDULES,
    remaining: undefined,
  },
): FirePlan {
  const fires: number[] = [];
  let skipped = 0;
  let t = next;
  const missedBefore = now - options.missedAfterMs;
  const room = () => options.remaining === undefined || fires.length < options.remaining;

  if (t !== undefined && t < missedBefore) {
    const resume = fireAtOrAfter(timing, missedBefore);
    if (catchUp === 'all') {
      while (t !== undefined && t < missedBefore && fires.length < options.maxCatchUp && room()) {
        fires.push(t);
        t = fireAfter(timing, t);
      }
      // Past the cap, the rest of the backlog waits for the next pass.
      if (t !== undefined && t < missedBefore) return { fires, next: room() ? t : undefined, skipped };
    } else {
      const last = lastFireBetween(timing, t, missedBefore - 1);
      if (catchUp === 'one' && last !== undefined && room()) {
        fires.push(last);
        skipped = countBetween(timing, t, last) - 1;
      } else {
        skipped = last === undefined ? 0 : countBetween(timing, t, last);
      }
      t = resume;
    }
  }
  while (t !== undefined && t <= now + options.lookaheadMs && room()) {
    fires.push(t);
    t = fireAfter(timing, t);
  }
  return { fires, next: room() ? t : undefined, skipped };
}

/** How many fire times lie in [from, to] (bounded: it is only for reporting). */
function countBetween(timing: Timing, from: number, to: number): number {
  let n = 0;
  for (let t: number | undefined = from; t !== undefined && t <= to && n < 100_000; t = fireAfter(timing, t))
    n++;
  return n;
}
