import { SCHEDULES } from '../defaults.js';
import type { Store } from '../redis/store.js';
import { planFires } from '../schedules/plan.js';
import { parseRecord, timingOf } from '../schedules/spec.js';
import { Loop } from '../util/loop.js';

export interface FireReport {
  schedule: string;
  created: number;
  skipped: number;
}

/**
 * Turns schedules into jobs (schedule-fire.lua): each occurrence a little ahead of its fire time,
 * once, whatever the number of Schedulers. Fire times are computed from Redis time, never the
 * local clock; it sleeps until the next one is near, at most SCHEDULES.intervalMs.
 */
export class Materializer {
  private readonly loop: Loop;

  constructor(
    private readonly store: Store,
    private readonly onFire: (report: FireReport) => void,
    private readonly onError: (error: unknown) => void,
  ) {
    this.loop = new Loop(() => this.pass(), SCHEDULES.intervalMs, onError);
  }

  start(): void {
    this.loop.start();
  }

  private async pass(): Promise<number> {
    const stored = await this.store.readSchedules();
    const names = Object.keys(stored);
    if (names.length === 0) return SCHEDULES.intervalMs;
    const [seconds, micros] = await this.store.client.time();
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    let sleep: number = SCHEDULES.intervalMs;
    for (const name of names) {
      let record: ReturnType<typeof parseRecord>;
      try {
        record = parseRecord(stored[name] as string);
      } catch (error) {
        this.onError(new Error(`schedule "${name}" is not readable JSON: ${(error as Error).message}`));
        continue;
      }
      if (record.done || record.next === undefined) continue;
      const remaining = record.limit === undefined ? undefined : Math.max(record.limit - record.count, 0);
      const plan = planFires(timingOf(record), record.next, record.catchUp, now, { ...SCHEDULES, remaining });
      if (plan.fires.length > 0 || plan.next !== record.next) {
        const result = await this.store.scheduleFire({
          name,
          version: record.version,
          from: record.next,
          next: plan.next,
          fires: plan.fires,
          skipped: plan.skipped,
        });
        if (result.outcome === 'ok' && (result.created > 0 || result.skipped > 0)) {
          this.onFire({ schedule: name, created: result.created, skipped: result.skipped });
        }
      }
      if (plan.next !== undefined) sleep = Math.min(sleep, plan.next - SCHEDULES.lookaheadMs - now);
    }
    return Math.max(sleep, 20);
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
