import { BATCH } from '../defaults.js';
import type { ClaimedJob, ExtendCode, Store } from '../redis/store.js';
import { Loop } from '../util/loop.js';

/**
 * Extends the leases of every job the worker holds, a third of a lease period before they run
 * out, in one extend.lua call per 250 jobs. A job that ran past its lease because the event loop
 * was blocked may already have been reclaimed: the answer says so, and the worker stops counting
 * on it.
 */
export class Heartbeat {
  private readonly loop: Loop;

  constructor(
    private readonly store: Store,
    private readonly leaseMs: number,
    private readonly held: () => ClaimedJob[],
    private readonly onCodes: (jobs: readonly ClaimedJob[], codes: readonly ExtendCode[]) => void,
    onError: (error: unknown) => void,
  ) {
    this.loop = new Loop(() => this.beat(), Math.max(Math.floor(leaseMs / 3), 100), onError);
  }

  start(): void {
    this.loop.start(Math.max(Math.floor(this.leaseMs / 3), 100));
  }

  private async beat(): Promise<undefined> {
    const jobs = this.held();
    for (let i = 0; i < jobs.length; i += BATCH.complete) {
      const chunk = jobs.slice(i, i + BATCH.complete);
      this.onCodes(chunk, await this.store.extend(chunk, this.leaseMs));
    }
    return undefined;
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
