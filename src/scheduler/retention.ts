import { BATCH } from '../defaults.js';
import { SERIES, SERIES_FIELDS } from '../events/series.js';
import type { Store } from '../redis/store.js';
import { Loop } from '../util/loop.js';

/**
 * Deletes kept completed jobs past their `keepCompleted` limits (trim-done.lua), for the time no
 * completion trims them: an age limit must hold on a quiet queue too; and chart buckets past the
 * series retention (trim-series.lua).
 */
export class Retention {
  private readonly loop: Loop;

  constructor(
    private readonly store: Store,
    intervalMs: number,
    onError: (error: unknown) => void,
  ) {
    this.loop = new Loop(() => this.pass(), intervalMs, onError);
  }

  start(): void {
    this.loop.start();
  }

  private async pass(): Promise<undefined> {
    for (let i = 0; i < 100; i++) {
      if ((await this.store.trimDone(BATCH.retention)) < BATCH.retention) break;
    }
    // Chart buckets past their retention, a few hundred per call.
    for (let i = 0; i < 10; i++) {
      if ((await this.store.trimSeries(SERIES.retentionMs, SERIES.bucketMs, SERIES_FIELDS)) === 0) break;
    }
    return undefined;
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
