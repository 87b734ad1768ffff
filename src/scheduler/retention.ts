import { BATCH } from '../defaults.js';
import type { Store } from '../redis/store.js';
import { Loop } from '../util/loop.js';

/**
 * Deletes kept completed jobs past their `keepCompleted` limits (trim-done.lua), for the time no
 * completion trims them: an age limit must hold on a quiet queue too.
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
    return undefined;
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
