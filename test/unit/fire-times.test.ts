import { describe, expect, it } from 'vitest';
import { fireAfter, fireAtOrAfter, lastFireBetween, type Timing } from '../../src/schedules/fire-times.js';
import { planFires } from '../../src/schedules/plan.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

function runs(timing: Timing, fromIso: string, n: number): (string | undefined)[] {
  const out: (string | undefined)[] = [];
  let t = fireAtOrAfter(timing, at(fromIso));
  for (let i = 0; i < n; i++) {
    out.push(iso(t));
    t = t === undefined ? undefined : fireAfter(timing, t);
  }
  return out;
}

describe('fire times', () => {
  it('a daily cron in Asia/Shanghai (UTC+8, no DST) fires at 18:00 UTC the day before', () => {
    expect(runs({ cron: '0 2 * * *', tz: 'Asia/Shanghai', anchor: 0 }, '2026-03-06T12:00:00Z', 3)).toEqual([
      '2026-03-06T18:00:00.000Z',
      '2026-03-07T18:00:00.000Z',
      '2026-03-08T18:00:00.000Z',
    ]);
  });

  it('a daily 02:00 in America/New_York runs at 03:00 EDT on the night 02:00 does not exist (spring forward)', () => {
    expect(runs({ cron: '0 2 * * *', tz: 'America/New_York', anchor: 0 }, '2026-03-06T12:00:00Z', 4)).toEqual(
      [
        '2026-03-07T07:00:00.000Z', // 02:00 EST (UTC-5)
        '2026-03-08T07:00:00.000Z', // 02:00 is skipped: the first valid time after the gap, 03:00 EDT
        '2026-03-09T06:00:00.000Z', // 02:00 EDT (UTC-4)
        '2026-03-10T06:00:00.000Z',
      ],
    );
  });

  it('a daily 01:30 in America/New_York runs once on the night 01:30 happens twice (fall back)', () => {
    expect(
      runs({ cron: '30 1 * * *', tz: 'America/New_York', anchor: 0 }, '2026-10-31T12:00:00Z', 3),
    ).toEqual([
      '2026-11-01T05:30:00.000Z', // the first 01:30, still EDT; the second (06:30Z) does not run
      '2026-11-02T06:30:00.000Z', // 01:30 EST
      '2026-11-03T06:30:00.000Z',
    ]);
  });

  it('an interval fires at whole intervals after its anchor, or from startAt', () => {
    const anchor = at('2026-01-01T00:00:00Z');
    expect(runs({ everyMs: 60_000, anchor }, '2026-01-01T00:00:00Z', 2)).toEqual([
      '2026-01-01T00:01:00.000Z',
      '2026-01-01T00:02:00.000Z',
    ]);
    expect(runs({ everyMs: 60_000, anchor }, '2026-01-01T00:05:30Z', 1)).toEqual([
      '2026-01-01T00:06:00.000Z',
    ]);
    expect(runs({ everyMs: 60_000, anchor, startAt: anchor }, '2025-12-31T00:00:00Z', 2)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:01:00.000Z',
    ]);
  });

  it('stops at endAt', () => {
    const anchor = at('2026-01-01T00:00:00Z');
    expect(runs({ everyMs: 60_000, anchor, endAt: anchor + 120_000 }, '2026-01-01T00:00:00Z', 3)).toEqual([
      '2026-01-01T00:01:00.000Z',
      '2026-01-01T00:02:00.000Z',
      undefined,
    ]);
  });

  it('finds the latest fire time in a window', () => {
    const cron: Timing = { cron: '*/10 * * * * *', anchor: 0 };
    expect(iso(lastFireBetween(cron, at('2026-01-01T00:00:00Z'), at('2026-01-01T00:00:35Z')))).toBe(
      '2026-01-01T00:00:30.000Z',
    );
    expect(lastFireBetween(cron, at('2026-01-01T00:00:31Z'), at('2026-01-01T00:00:35Z'))).toBeUndefined();
  });
});

describe('planFires', () => {
  const anchor = 1_000_000;
  const every: Timing = { everyMs: 1_000, anchor };
  const options = { lookaheadMs: 1_000, missedAfterMs: 1_000, maxCatchUp: 1_000, remaining: undefined };

  it('creates what is due within the lookahead, and nothing early', () => {
    expect(planFires(every, anchor + 1_000, 'one', anchor + 500, options)).toEqual({
      fires: [anchor + 1_000],
      next: anchor + 2_000,
      skipped: 0,
    });
    expect(planFires(every, anchor + 5_000, 'one', anchor + 500, options)).toEqual({
      fires: [],
      next: anchor + 5_000,
      skipped: 0,
    });
  });

  it('after an outage, follows the catch-up policy', () => {
    // Next was due at +1 s; the Scheduler comes back at +10.5 s: +1 … +9 s were missed.
    const now = anchor + 10_500;
    const upcoming = [anchor + 10_000, anchor + 11_000];
    expect(planFires(every, anchor + 1_000, 'none', now, options)).toEqual({
      fires: upcoming,
      next: anchor + 12_000,
      skipped: 9,
    });
    expect(planFires(every, anchor + 1_000, 'one', now, options)).toEqual({
      fires: [anchor + 9_000, ...upcoming],
      next: anchor + 12_000,
      skipped: 8,
    });
    const all = planFires(every, anchor + 1_000, 'all', now, options);
    expect(all.fires).toEqual([
      ...Array.from({ length: 9 }, (_, i) => anchor + 1_000 * (i + 1)),
      ...upcoming,
    ]);
  });

  it('bounds catch-up: the rest waits for the next pass', () => {
    const plan = planFires(every, anchor + 1_000, 'all', anchor + 100_000, { ...options, maxCatchUp: 10 });
    expect(plan.fires).toHaveLength(10);
    expect(plan.next).toBe(anchor + 11_000);
  });

  it('stops at the limit', () => {
    expect(planFires(every, anchor + 1_000, 'all', anchor + 100_000, { ...options, remaining: 2 })).toEqual({
      fires: [anchor + 1_000, anchor + 2_000],
      next: undefined,
      skipped: 0,
    });
  });
});
