import { BATCH } from '../defaults.js';
import type { Store } from '../redis/store.js';
import { Loop } from '../util/loop.js';

/** Passes per tick at most, so that a flood of expired leases cannot keep one tick going forever. */
const MAX_PASSES = 20;

/**
 * Takes back jobs whose lease expired (reclaim.lua): their worker died, stalled or lost Redis.
 * Each goes back to `delayed` with its backoff, or to `dead` when out of attempts.
 */
export class Reclaimer {
  private readonly loop: Loop;

  constructor(
    private readonly store: Store,
    intervalMs: number,
    private readonly onReclaimed: (result: { reclaimed: number; dead: number }) => void,
    onError: (error: unknown) => void,
  ) {
    this.loop = new Loop(() => this.pass(), intervalMs, onError);
  }

  start(firstDelayMs = 0): void {
    this.loop.start(firstDelayMs);
  }

  private async pass(): Promise<undefined> {
    for (let i = 0; i < MAX_PASSES; i++) {
      const result = await this.store.reclaim(BATCH.reclaim, Math.random());
      if (result.reclaimed > 0) this.onReclaimed(result);
      // Stale entries (no job behind them) are removed without counting; a short pass means done.
      if (result.reclaimed < BATCH.reclaim) break;
    }
    return undefined;
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
