import { BATCH } from '../defaults.js';
import type { ClaimedJob, CompleteCode, Store } from '../redis/store.js';
import { sleep } from '../util/sleep.js';

export interface Ack {
  job: ClaimedJob;
  /** The result as JSON, for jobs kept after completion; '' otherwise. */
  result: string;
  /** The handler's return value, for the 'completed' event. */
  value: unknown;
}

const ATTEMPTS = 5;

/**
 * Completions, acknowledged in batches: everything that finished in one tick, or while the
 * previous batch was on its way, goes in one complete.lua call. This is most of the drain rate.
 */
export class AckBuffer {
  private pending: Ack[] = [];
  private scheduled: NodeJS.Immediate | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    private readonly onAcked: (ack: Ack, code: CompleteCode) => void,
    private readonly onError: (error: unknown, lost: readonly Ack[]) => void,
  ) {}

  push(ack: Ack): void {
    this.pending.push(ack);
    if (this.scheduled || this.flushing) return;
    this.scheduled = setImmediate(() => {
      this.scheduled = undefined;
      this.flushing = this.flush();
    });
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, BATCH.complete);
      const codes = await this.send(batch);
      if (codes) {
        for (const [i, ack] of batch.entries()) this.onAcked(ack, codes[i] ?? -1);
      }
    }
    this.flushing = undefined;
  }

  private async send(batch: Ack[]): Promise<CompleteCode[] | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.store.complete(
          batch.map((a) => a.job),
          batch.map((a) => a.result),
        );
      } catch (error) {
        if (attempt >= ATTEMPTS) {
          // Their leases will expire and the jobs run again: at least once, never lost.
          this.onError(error, batch);
          return undefined;
        }
        await sleep(200 * attempt);
      }
    }
  }

  /** Waits until every completion so far has been sent and answered. */
  async drain(): Promise<void> {
    while (this.scheduled || this.flushing || this.pending.length > 0) {
      if (this.scheduled) {
        clearImmediate(this.scheduled);
        this.scheduled = undefined;
        this.flushing = this.flush();
      }
      await this.flushing;
    }
  }
}
