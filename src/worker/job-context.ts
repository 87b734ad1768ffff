import type { OnceOptions } from '../coordination/once.js';
import { LIMITS } from '../defaults.js';
import type { ClaimedJob } from '../redis/store.js';
import { checkNumber } from '../util/checks.js';
import { parseDuration } from '../util/duration.js';

/** What a JobContext asks of its worker. */
export interface JobControls {
  progress(job: ClaimedJob, value: number): Promise<void>;
  extendLease(job: ClaimedJob, ms: number): Promise<void>;
  once<T>(key: string, fn: () => Promise<T> | T, options: OnceOptions | undefined): Promise<T>;
}

/**
 * Returned (or thrown) by `job.retryIn()`: the job finishes this attempt and runs again after
 * the delay, without counting a failure.
 */
export class RetryLater {
  constructor(readonly delayMs: number) {}
}

/** What a handler gets: the job, its AbortSignal, and what it may ask of the queue while it runs. */
export class JobContext<Data = unknown> {
  readonly id: string;
  readonly type: string;
  readonly data: Data;
  /** This attempt's number, from 1. */
  readonly attempt: number;
  readonly maxAttempts: number;
  /** When the job was due (Redis time, ms since the epoch). */
  readonly dueAt: number;
  /** @internal set by retryIn() */
  retryLater: RetryLater | undefined;
  #controller: AbortController | undefined;
  #reason: unknown;
  #aborted = false;
  readonly #job: ClaimedJob;
  readonly #controls: JobControls;

  constructor(job: ClaimedJob, data: Data, controls: JobControls) {
    this.id = job.id;
    this.type = job.type;
    this.data = data;
    this.attempt = job.attempt;
    this.maxAttempts = job.maxAttempts;
    this.dueAt = job.dueAt;
    this.#job = job;
    this.#controls = controls;
  }

  /**
   * Fires when the attempt should stop: its timeout passed, the job was cancelled, the worker
   * lost its lease, or the worker is closing past its grace period. `signal.reason` says which.
   */
  get signal(): AbortSignal {
    // Made on first use: most handlers never look, and a controller per job is not free.
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** @internal */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }

  /** Stores the job's progress (a number, e.g. percent), visible in getJob. */
  progress(value: number): Promise<void> {
    checkNumber('progress', value, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
    return this.#controls.progress(this.#job, value);
  }

  /** Extends this job's lease to `ms` from now (the worker also extends leases on its own). */
  extendLease(ms: number | string): Promise<void> {
    return this.#controls.extendLease(this.#job, parseDuration('ms', ms, LIMITS.delayMs));
  }

  /**
   * Runs `fn` at most once per key, across retries and duplicate deliveries of this or any job of
   * the queue: a payment charged once even if the job runs twice (DESIGN §3.5). Later calls get the
   * stored result; a failure frees the key for the retry. Results are remembered 24 h by default.
   */
  once<T>(key: string, fn: () => Promise<T> | T, options?: Partial<OnceOptions>): Promise<T> {
    return this.#controls.once(key, fn, options as OnceOptions | undefined);
  }

  /**
   * Ends this attempt and runs the job again after `delay` (ms or '30s'), without counting a
   * failure: for polling jobs, such as a payment check waiting for the bank. Return (or throw)
   * what it returns: `return job.retryIn('30s')`.
   */
  retryIn(delay: number | string): RetryLater {
    this.retryLater = new RetryLater(parseDuration('delay', delay, LIMITS.delayMs));
    return this.retryLater;
  }
}
