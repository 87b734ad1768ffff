import { BATCH } from '../defaults.js';
import { InvalidStateError, JobNotFoundError } from '../errors.js';
import type { Store } from '../redis/store.js';
import { checkInteger } from '../util/checks.js';
import { newJobId } from '../util/ids.js';
import { checkPage, listJobs } from './inspect.js';
import type { JobInfo } from './job-info.js';

/** What `queue.dead` offers (a sharded queue's spans its shards). */
export interface DeadLetterQueue {
  list(options?: { offset?: number; limit?: number }): Promise<JobInfo[]>;
  replay(options?: { limit?: number }): Promise<number>;
  remove(id: string): Promise<void>;
  purge(): Promise<number>;
}

/**
 * The dead-letter queue: jobs that ran out of attempts, threw UnrecoverableError, or had data no
 * handler could read. Not a bin but a to-do list: look at them, fix the cause, replay them.
 */
export class DeadLetters implements DeadLetterQueue {
  constructor(
    private readonly store: Store,
    private readonly queueName: string,
    private readonly ensureOpen: () => void,
  ) {}

  /** Dead jobs, newest first, with their errors. */
  async list(options: { offset?: number; limit?: number } = {}): Promise<JobInfo[]> {
    this.ensureOpen();
    const { offset, limit } = checkPage(options);
    return listJobs(this.store, 'dead', offset, limit);
  }

  /**
   * Moves the oldest dead jobs back to ready with their attempts reset, at most `limit` (a flood
   * of replayed jobs all due at once is what seed 002 §4.3 warns of). Returns how many moved.
   */
  async replay(options: { limit?: number } = {}): Promise<number> {
    this.ensureOpen();
    const limit = checkInteger('limit', options.limit ?? 10, 1, 1_000_000);
    let moved = 0;
    while (moved < limit) {
      const batch = Math.min(limit - moved, BATCH.dead);
      const n = await this.store.deadReplay(batch, newJobId());
      moved += n;
      if (n < batch) break;
    }
    return moved;
  }

  /** Deletes one dead job. */
  async remove(id: string): Promise<void> {
    this.ensureOpen();
    const { code, state } = await this.store.deadRemove(id);
    if (code === 0) throw new JobNotFoundError(this.queueName, id);
    if (code === 2)
      throw new InvalidStateError(id, state, 'only dead jobs can be removed (cancel waiting ones)');
  }

  /** Deletes every dead job; returns how many. */
  async purge(): Promise<number> {
    this.ensureOpen();
    let removed = 0;
    for (;;) {
      const n = await this.store.deadPurge(BATCH.dead);
      removed += n;
      if (n === 0) return removed;
    }
  }
}
