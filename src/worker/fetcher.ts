import { WORKER } from '../defaults.js';
import type { Client } from '../redis/connection.js';
import type { ClaimedJob, Store } from '../redis/store.js';
import type { RedisClock } from './redis-clock.js';

export interface FetcherDeps {
  store: Store;
  /** A connection of its own: a blocking call holds up everything else on its connection. */
  blocker: Client;
  clock: RedisClock;
  leaseMs: number;
  workerId: string;
  /** Free slots right now. */
  capacity(): number;
  deliver(jobs: ClaimedJob[]): void;
  /** Jobs whose claim answered after stop(): the worker hands them straight back. */
  giveBack(jobs: ClaimedJob[]): Promise<void>;
  onError(error: unknown): void;
}

/**
 * Claims work for one worker. Its modes:
 *
 * - claiming: one claim in flight at a time, for as many jobs as there are free slots. A batch
 *   leaves together, so slots that free up in the same tick are claimed together (pump() waits
 *   for setImmediate), which keeps claims large under load.
 * - full: every slot busy; the next freed slot pumps again.
 * - idle: the last claim found less than it wanted. The worker blocks on the wake list (another
 *   connection) and arms one local timer for the next due time the claim returned, converted from
 *   Redis time with the measured clock offset. No polling interval: a new ready job wakes it
 *   within a round trip; a delayed one at its due time. A blocking timeout cannot be that timer,
 *   since Redis fires those on its cron tick, ~100 ms late (DESIGN §6).
 * - stopped: no more claims; a claim still in flight hands its jobs back.
 */
export class Fetcher {
  private claimSeq = 0;
  private claiming: Promise<void> | undefined;
  private pumpScheduled: NodeJS.Immediate | undefined;
  private idle = false;
  private stopped = false;
  private dueTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private blocking = false;
  private failures = 0;
  private firstClaimDone!: () => void;
  /** Resolves once the first claim has answered (or failed). */
  readonly firstClaim = new Promise<void>((resolve) => {
    this.firstClaimDone = resolve;
  });

  constructor(private readonly deps: FetcherDeps) {}

  start(): void {
    this.pumpNow();
  }

  /** A slot freed up, or work may be there: claim soon if there is room. */
  pump(): void {
    if (this.pumpScheduled || this.stopped) return;
    this.pumpScheduled = setImmediate(() => {
      this.pumpScheduled = undefined;
      this.pumpNow();
    });
  }

  private pumpNow(): void {
    if (this.stopped || this.claiming || this.idle || this.retryTimer) return;
    const wanted = this.deps.capacity();
    if (wanted <= 0) return;
    this.claiming = this.claim(wanted);
  }

  private async claim(wanted: number): Promise<void> {
    const token = `${this.deps.workerId}:${(++this.claimSeq).toString(36)}`;
    const sentAt = performance.now();
    let reply: Awaited<ReturnType<Store['claim']>>;
    try {
      reply = await this.deps.store.claim(wanted, this.deps.leaseMs, token);
    } catch (error) {
      this.claiming = undefined;
      this.firstClaimDone();
      if (this.stopped) return;
      this.deps.onError(error);
      this.failures++;
      const delay = Math.min(WORKER.retryMinMs * 2 ** (this.failures - 1), WORKER.retryMaxMs);
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        this.pumpNow();
      }, delay);
      return;
    }
    this.deps.clock.sample(reply.redisTimeUs, sentAt, performance.now());
    this.claiming = undefined;
    this.failures = 0;
    this.firstClaimDone();
    if (this.stopped) {
      if (reply.jobs.length > 0) await this.deps.giveBack(reply.jobs);
      return;
    }
    if (reply.jobs.length > 0) this.deps.deliver(reply.jobs);
    if (reply.paused || (reply.jobs.length < wanted && !reply.more)) {
      this.sleep(reply.paused ? -1 : reply.nextDue);
    } else {
      this.pumpNow();
    }
  }

  private sleep(nextDue: number): void {
    this.idle = true;
    if (nextDue >= 0) {
      const delay = Math.min(Math.max(Math.ceil(nextDue - this.deps.clock.now()), 0), WORKER.maxTimerMs);
      this.dueTimer = setTimeout(() => this.wake(), delay);
    }
    void this.blockLoop();
  }

  private wake(): void {
    if (!this.idle || this.stopped) return;
    this.idle = false;
    clearTimeout(this.dueTimer);
    this.dueTimer = undefined;
    this.pumpNow();
  }

  private async blockLoop(): Promise<void> {
    if (this.blocking) return;
    this.blocking = true;
    try {
      while (!this.stopped && this.idle) {
        const heard = await this.blockOnce();
        if (this.stopped) break;
        if (heard === 'token') {
          if (this.idle) this.wake();
          // Woken by its timer meanwhile: the token was meant for another idle worker.
          else await this.deps.store.client.lpush(this.deps.store.keys.wake, '1');
        } else if (heard === 'timeout') {
          // The safety net: claim once, in case a token went to a worker that died holding it.
          this.wake();
        } else {
          await new Promise((resolve) => setTimeout(resolve, WORKER.retryMaxMs));
        }
      }
    } catch (error) {
      if (!this.stopped) this.deps.onError(error);
    } finally {
      this.blocking = false;
    }
  }

  private async blockOnce(): Promise<'token' | 'timeout' | 'error'> {
    const call = this.deps.blocker.blpop(this.deps.store.keys.wake, WORKER.blockSeconds);
    let watchdog: NodeJS.Timeout | undefined;
    const stuck = new Promise<'stuck'>((resolve) => {
      watchdog = setTimeout(() => resolve('stuck'), WORKER.blockSeconds * 1_000 + WORKER.blockWatchdogMs);
    });
    try {
      const result = await Promise.race([call, stuck]);
      if (result === 'stuck') {
        // No answer long after the block should have ended: presume a dead connection. After a
        // failover the call may also sit UNBLOCKED-less on a replaced socket (DESIGN §6).
        call.catch(() => {});
        this.deps.blocker.disconnect(true);
        return 'timeout';
      }
      return result ? 'token' : 'timeout';
    } catch (error) {
      if (!this.stopped) this.deps.onError(error);
      return 'error';
    } finally {
      clearTimeout(watchdog);
    }
  }

  /** Stops claiming; waits for a claim in flight, whose jobs are handed back. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.idle = false;
    clearTimeout(this.dueTimer);
    clearTimeout(this.retryTimer);
    if (this.pumpScheduled) clearImmediate(this.pumpScheduled);
    this.firstClaimDone();
    await this.claiming;
  }
}
