import { WORKER } from '../defaults.js';
import type { Client } from '../redis/connection.js';
import type { ClaimedJob, ClaimReply, Store } from '../redis/store.js';
import type { RedisClock } from './redis-clock.js';

export interface FetcherDeps {
  store: Store;
  /** A connection of its own: a blocking call holds up everything else on its connection. */
  blocker: Client;
  clock: RedisClock;
  leaseMs: number;
  workerId: string;
  /** How many more jobs the worker can take now: free slots plus room in its prefetch buffer. */
  capacity(): number;
  /** The most it can ever take (concurrency plus prefetch): each claim asks for half of it at most. */
  readonly maxCapacity: number;
  deliver(jobs: ClaimedJob[]): void;
  /** Jobs whose claim answered after stop(): the worker hands them straight back. */
  giveBack(jobs: ClaimedJob[]): Promise<void>;
  onError(error: unknown): void;
}

/** Claims in flight at once: one being answered while Redis already works on the next. */
const MAX_CLAIMS_IN_FLIGHT = 2;
/** Jobs one claim asks for at most, so that no claim script runs long (DESIGN §3.6). */
const MAX_CLAIM = 48;

/**
 * Claims work for one worker. Its modes:
 *
 * - claiming: up to two claims in flight, together for no more jobs than the worker can take
 *   (capacity: free slots plus its prefetch buffer). While the worker runs the jobs of one
 *   answer, Redis already runs the next claim, so neither waits for the other under load. Slots
 *   that free up in the same tick are claimed together (pump() waits for setImmediate).
 * - full: no capacity left; the next freed slot pumps again.
 * - idle: a claim found less than it asked for and nothing more ready. The worker blocks on the
 *   wake list (another connection) and arms one local timer for the next due time the claim
 *   returned, converted from Redis time with the measured clock offset. No polling interval: a
 *   new ready job wakes it within a round trip; a delayed one at its due time. A blocking timeout
 *   cannot be that timer, since Redis fires those on its cron tick, ~100 ms late (DESIGN §6).
 * - stopped: no more claims; claims still in flight hand their jobs back.
 */
export class Fetcher {
  private claimSeq = 0;
  private readonly inFlight = new Set<Promise<void>>();
  /** Jobs asked for by the claims in flight. */
  private reserved = 0;
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
    while (!this.stopped && !this.idle && !this.retryTimer && this.inFlight.size < MAX_CLAIMS_IN_FLIGHT) {
      const room = this.deps.capacity() - this.reserved;
      if (room <= 0) return;
      // Half the capacity per claim, so that two can be in flight: one answered, one running.
      const wanted = Math.min(room, MAX_CLAIM, Math.ceil(this.deps.maxCapacity / MAX_CLAIMS_IN_FLIGHT));
      this.reserved += wanted;
      const claim = this.claim(wanted).finally(() => {
        this.reserved -= wanted;
        this.inFlight.delete(claim);
      });
      this.inFlight.add(claim);
    }
  }

  private async claim(wanted: number): Promise<void> {
    const token = `${this.deps.workerId}:${(++this.claimSeq).toString(36)}`;
    const sentAt = performance.now();
    let reply: ClaimReply;
    try {
      reply = await this.deps.store.claim(wanted, this.deps.leaseMs, token);
    } catch (error) {
      this.firstClaimDone();
      if (this.stopped) return;
      this.deps.onError(error);
      this.failures++;
      const delay = Math.min(WORKER.retryMinMs * 2 ** (this.failures - 1), WORKER.retryMaxMs);
      clearTimeout(this.retryTimer);
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        this.pumpNow();
      }, delay);
      return;
    }
    this.deps.clock.sample(reply.redisTimeUs, sentAt, performance.now());
    this.failures = 0;
    this.firstClaimDone();
    if (this.stopped) {
      if (reply.jobs.length > 0) await this.deps.giveBack(reply.jobs);
      return;
    }
    if (reply.jobs.length > 0) this.deps.deliver(reply.jobs);
    if (reply.paused || (reply.jobs.length < wanted && !reply.more)) {
      this.sleep(reply.paused ? -1 : reply.nextDue);
    } else if (this.idle) {
      // The other claim in flight had found nothing, but this one found work: go on.
      this.wake();
    } else {
      // This claim's answer is in; the next can go while the worker runs these jobs.
      queueMicrotask(() => this.pumpNow());
    }
  }

  private sleep(nextDue: number): void {
    this.idle = true;
    clearTimeout(this.dueTimer);
    this.dueTimer = undefined;
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
        // failover the call may also sit forever on a replaced socket (DESIGN §6).
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

  /** Stops claiming; waits for the claims in flight, whose jobs are handed back. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.idle = false;
    clearTimeout(this.dueTimer);
    clearTimeout(this.retryTimer);
    if (this.pumpScheduled) clearImmediate(this.pumpScheduled);
    this.firstClaimDone();
    await Promise.all([...this.inFlight]);
  }
}
