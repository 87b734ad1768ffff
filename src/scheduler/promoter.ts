import { BATCH } from '../defaults.js';
import type { PromoteReply, Store } from '../redis/store.js';
import { Loop } from '../util/loop.js';

/**
 * Moves due jobs to `ready` even when no worker is claiming (promote.lua): counts stay true and
 * ready work is waiting when workers come. It sleeps until the next due time, at most
 * `maxSleepMs`, and goes again at once while full batches keep moving.
 */
export class Promoter {
  private readonly loop: Loop;

  constructor(
    private readonly store: Store,
    private readonly maxReady: number,
    private readonly maxSleepMs: number,
    private readonly onPass: (reply: PromoteReply) => void,
    onError: (error: unknown) => void,
  ) {
    this.loop = new Loop(() => this.pass(), maxSleepMs, onError);
  }

  start(): void {
    this.loop.start();
  }

  private async pass(): Promise<number> {
    const reply = await this.store.promote(BATCH.promote, this.maxReady);
    this.onPass(reply);
    if (reply.backpressure) return this.maxSleepMs;
    if (reply.moved >= BATCH.promote) return 0;
    if (reply.nextDue < 0) return this.maxSleepMs;
    return Math.min(Math.max(reply.nextDue - reply.now, 0), this.maxSleepMs);
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
