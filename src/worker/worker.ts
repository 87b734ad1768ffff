import { EventEmitter } from 'node:events';
import { checkOnceOptions, runOnce } from '../coordination/once.js';
import {
  DEFAULT_CLOSE_TIMEOUT_MS,
  DEFAULT_CONCURRENCY,
  DEFAULT_LEASE_MS,
  LIMITS,
  ONCE_DEFAULT_TTL_MS,
  WORKER,
} from '../defaults.js';
import {
  BadJobDataError,
  JobCancelledError,
  JobTimeoutError,
  LeaseLostError,
  NoHandlerError,
  ShutdownError,
  UnrecoverableError,
  ValidationError,
} from '../errors.js';
import { type Handler, isJobDefinition, type JobDefinition } from '../jobs/define-job.js';
import { decodeBackoff } from '../queue/backoff.js';
import type { JobInfo, JobState } from '../queue/job-info.js';
import type { Queue } from '../queue/queue.js';
import { resolveQueueTarget } from '../queue/target.js';
import { type ConnectionOption, closeClient, type OpenedClient, openClient } from '../redis/connection.js';
import type { QueueKeys } from '../redis/keys.js';
import {
  type ClaimedJob,
  type CompleteCode,
  type ExtendCode,
  type FailReply,
  Store,
} from '../redis/store.js';
import { Reclaimer } from '../scheduler/reclaimer.js';
import { checkInteger, checkKnownKeys, checkPlainObject, checkString } from '../util/checks.js';
import { describe } from '../util/describe.js';
import { parseDuration } from '../util/duration.js';
import { newWorkerId } from '../util/ids.js';
import { type Ack, AckBuffer } from './ack-buffer.js';
import { ControlListener } from './control.js';
import { Fetcher } from './fetcher.js';
import { Heartbeat } from './heartbeat.js';
import { JobContext, type JobControls, RetryLater } from './job-context.js';
import { isUnrecoverable, storedError, toError } from './job-error.js';
import { PrefetchBuffer } from './prefetch.js';
import { RedisClock } from './redis-clock.js';

/** Handlers by job type (functions or defineJob definitions), or a list of definitions. */
export type Handlers = Record<string, Handler | JobDefinition> | readonly JobDefinition[];

export interface WorkerOptions {
  /** Redis URL, ioredis options, or an ioredis client to share. @default the Queue's, or localhost:6379 */
  connection?: ConnectionOption;
  /** @default the Queue's, or 'dueq' */
  prefix?: string;
  /** Jobs run at once. @default 16 */
  concurrency?: number;
  /** How long a claimed job is leased before it may be reclaimed; renewed every third of it. @default 30000 */
  leaseMs?: number | string;
  /**
   * Jobs claimed ahead of free slots, waiting in the worker (their leases renewed like running
   * ones; close() hands them back). Under load, the next claim then runs in Redis while the
   * worker runs the jobs of the last: throughput without more concurrency. Only as many as the
   * worker finished in the last 100–200 ms are taken ahead, so jobs never wait behind slow ones;
   * one that still waits half a second goes back to the queue. 0 turns it off.
   * @default concurrency
   */
  prefetch?: number;
  /**
   * How often this worker also looks for expired leases (any Scheduler does too), so that a
   * deployment of workers alone recovers jobs whose worker died. 0 turns it off. @default 5000
   */
  reclaimIntervalMs?: number;
  /**
   * Serve the N shards of a queue given by name, as `new Queue(name, { shards: N })` adds to
   * them. Given a sharded Queue, the worker serves its shards without this. @default 1
   */
  shards?: number;
}

export interface WorkerEvents {
  /** A job's handler is starting (its startedAt and dueAt say how late). */
  active: [job: JobInfo];
  completed: [job: JobInfo, result: unknown];
  /** Every failed attempt; followed by 'retrying' or 'dead'. */
  failed: [job: JobInfo, error: Error];
  retrying: [job: JobInfo, error: Error];
  dead: [job: JobInfo, error: Error];
  /** Connection and internal errors, and leases lost; a failing job is not an 'error'. */
  error: [error: Error];
}

type Outcome =
  | { kind: 'completed'; value: unknown }
  | { kind: 'failed'; error: Error; mode: 'retry' | 'dead' }
  | { kind: 'retryIn'; delayMs: number };

/** One queue, or one shard of a sharded queue, as the worker serves it. */
interface Lane {
  store: Store;
  /** Its blocking wait for new work. */
  blocker: OpenedClient;
  fetcher: Fetcher;
  acks: AckBuffer;
  heartbeat: Heartbeat;
  reclaimer: Reclaimer | undefined;
}

interface Running {
  job: ClaimedJob;
  ctx: JobContext | undefined;
  data: unknown;
  timer: NodeJS.Timeout | undefined;
  /** The outcome went out already (timeout), or must not (lease lost, handed back). */
  settled: boolean;
  /** When its timeout fired (performance.now()), if it did. */
  timedOutAt: number | undefined;
}

/** A handler still running past its timeout: it ignored its AbortSignal. */
export interface StuckJob {
  id: string;
  type: string;
  /** How long ago its timeout fired. */
  overdueMs: number;
}

const WORKER_OPTION_NAMES = [
  'connection',
  'prefix',
  'concurrency',
  'prefetch',
  'leaseMs',
  'reclaimIntervalMs',
  'shards',
] as const;

/**
 * Runs jobs of one queue: claims them in batches, calls the handler for their type, and reports
 * each outcome with the lease token it was claimed with. Starts at once.
 */
export class Worker extends EventEmitter<WorkerEvents> {
  readonly name: string;
  readonly concurrency: number;
  readonly leaseMs: number;
  /** Unique to this worker; lease tokens start with it. */
  readonly id = newWorkerId();
  private readonly handlers: Map<string, Handler>;
  private readonly typeOptions: Map<string, string>;
  private readonly command: OpenedClient;
  private readonly subscriber: OpenedClient;
  private readonly clock = new RedisClock();
  /** What it serves: one lane for a plain queue, one per shard of a sharded one. */
  private readonly lanes: Lane[];
  /** The lane each claimed job came from, for its outcome, lease and progress. */
  private readonly laneOf = new WeakMap<ClaimedJob, Lane>();
  private readonly running = new Map<string, Running>();
  private readonly reports = new Set<Promise<void>>();
  private slotsUsed = 0;
  readonly prefetch: number;
  private readonly reclaimIntervalMs: number;
  /** Claimed jobs waiting for a slot. */
  private readonly buffered: PrefetchBuffer;
  private idleWaiters: (() => void)[] = [];
  private readonly ready: Promise<void>;
  private closing: Promise<void> | undefined;

  constructor(queue: string | Queue, handlers: Handlers, options: WorkerOptions = {}) {
    super();
    const opts = checkPlainObject('Worker options', options);
    checkKnownKeys('Worker options', opts, WORKER_OPTION_NAMES);
    const target = resolveQueueTarget(queue, options);
    this.name = target.name;
    ({ handlers: this.handlers, typeOptions: this.typeOptions } = normalizeHandlers(handlers));
    this.concurrency =
      options.concurrency === undefined
        ? DEFAULT_CONCURRENCY
        : checkInteger('concurrency', options.concurrency, 1, LIMITS.concurrency);
    this.prefetch =
      options.prefetch === undefined
        ? this.concurrency
        : checkInteger('prefetch', options.prefetch, 0, LIMITS.concurrency);
    this.leaseMs =
      options.leaseMs === undefined
        ? DEFAULT_LEASE_MS
        : parseDuration('leaseMs', options.leaseMs, LIMITS.delayMs);
    if (this.leaseMs < 1_000)
      throw new ValidationError(`Expected \`leaseMs\` to be at least 1000, got ${describe(this.leaseMs)}`);
    const reclaimIntervalMs =
      options.reclaimIntervalMs === undefined
        ? WORKER.reclaimIntervalMs
        : checkInteger('reclaimIntervalMs', options.reclaimIntervalMs, 0, LIMITS.delayMs);
    this.reclaimIntervalMs = reclaimIntervalMs;

    const { connection } = target;
    const label = `dueq:worker:${this.name}:${this.id}`;
    this.command = openClient(connection, { name: label, waitForRedis: true });
    this.subscriber = openClient(connection, {
      name: `${label}:control`,
      waitForRedis: true,
      dedicated: true,
    });
    this.watch(this.command);
    this.watch(this.subscriber);
    this.buffered = new PrefetchBuffer(this.prefetch, WORKER.prefetchHoldMs, (jobs) => this.handBack(jobs));
    this.lanes = target.lanes.map((laneKeys, i) =>
      // A shard's blocking wait is on its own node: one connection per lane.
      this.openLane(laneKeys, connection, target.lanes.length > 1 ? `${label}#${i}:wait` : `${label}:wait`),
    );
    const controls = this.lanes.map(
      (lane) =>
        new ControlListener(this.subscriber.client, lane.store.keys.control, (id) => {
          this.running.get(id)?.ctx?.abort(new JobCancelledError(id));
          this.dropBuffered(id, 'cancelled');
        }),
    );
    for (const lane of this.lanes) {
      lane.heartbeat.start();
      lane.reclaimer?.start(reclaimIntervalMs);
    }
    // Claim only once cancel notices can be heard, so a job cancelled right after it started
    // is signalled at once rather than at the next heartbeat.
    this.ready = Promise.all([
      ...controls.map((control) => control.start()),
      ...this.lanes.map((lane) => lane.store.registerTypes(this.typeOptions)),
    ])
      .catch((error: unknown) => this.reportError(toError(error)))
      .then(async () => {
        if (!this.closing) for (const lane of this.lanes) lane.fetcher.start();
        await Promise.all(this.lanes.map((lane) => lane.fetcher.firstClaim));
      });
  }

  /** ioredis reports connection trouble on its own 'error' event; an unhandled one would crash. */
  private watch({ client, owned }: OpenedClient): void {
    if (owned) client.on('error', (err: Error) => this.reportError(err));
  }

  /** One queue's (or shard's) claims, completions, leases and reclaims; the slots are shared. */
  private openLane(keys: QueueKeys, connection: ConnectionOption | undefined, blockerName: string): Lane {
    const blocker = openClient(connection, { name: blockerName, waitForRedis: true, dedicated: true });
    this.watch(blocker);
    const store = new Store(this.command.client, keys);
    const onError = (error: unknown) => this.reportError(toError(error));
    const lane: Lane = {
      store,
      blocker,
      acks: new AckBuffer(
        store,
        (ack, code) => this.afterComplete(ack, code),
        (error, lost) => this.reportError(toError(error), `${lost.length} completions could not be recorded`),
      ),
      fetcher: new Fetcher({
        store,
        blocker: blocker.client,
        clock: this.clock,
        leaseMs: this.leaseMs,
        workerId: this.id,
        capacity: () => this.concurrency - this.slotsUsed + this.buffered.room(),
        maxCapacity: this.concurrency + this.prefetch,
        deliver: (jobs) => {
          for (const job of jobs) {
            this.laneOf.set(job, lane);
            if (this.slotsUsed < this.concurrency) void this.execute(job);
            else this.buffered.push(job);
          }
        },
        giveBack: async (jobs) => {
          await store.release(jobs);
        },
        onError,
      }),
      heartbeat: new Heartbeat(
        store,
        this.leaseMs,
        () => this.heldJobs(lane),
        (jobs, codes) => this.afterExtend(jobs, codes),
        onError,
      ),
      reclaimer:
        this.reclaimIntervalMs > 0
          ? new Reclaimer(store, this.reclaimIntervalMs, () => {}, onError)
          : undefined,
    };
    return lane;
  }

  private laneFor(job: ClaimedJob): Lane {
    return this.laneOf.get(job) ?? (this.lanes[0] as Lane);
  }

  /** Resolves once the worker listens for cancel notices and has made its first claim. */
  waitUntilReady(): Promise<void> {
    return this.ready;
  }

  /** Jobs whose handlers are running now. */
  get activeCount(): number {
    return this.slotsUsed;
  }

  /**
   * Handlers still running after their job's timeout fired: they ignored the AbortSignal. Their
   * failure is already recorded and the job follows its retry policy, but each holds a slot, and
   * only ending the process frees it (`dueq start` replaces such a worker process).
   */
  stuckJobs(): StuckJob[] {
    const now = performance.now();
    const stuck: StuckJob[] = [];
    for (const entry of this.running.values()) {
      if (entry.timedOutAt !== undefined) {
        stuck.push({ id: entry.job.id, type: entry.job.type, overdueMs: Math.round(now - entry.timedOutAt) });
      }
    }
    return stuck;
  }

  private readonly controls: JobControls = {
    progress: async (job, value) => {
      if (!(await this.laneFor(job).store.progress(job, value))) throw new LeaseLostError(job.id);
    },
    extendLease: async (job, ms) => {
      const [code] = await this.laneFor(job).store.extend([job], ms);
      if (code === 0) throw new LeaseLostError(job.id);
    },
    once: (key, fn, options) => {
      const o = checkOnceOptions({ ttlMs: ONCE_DEFAULT_TTL_MS, ...options });
      // Keys of the first lane: the same for every job of the queue (a shard's job included), and
      // inside one hash tag, so one slot in a cluster.
      const store = (this.lanes[0] as Lane).store;
      const redisKey = `${store.keys.base}once:${checkString('once key', key, LIMITS.keyLength)}`;
      return runOnce(store.client, redisKey, fn, o);
    },
  };

  private async execute(job: ClaimedJob): Promise<void> {
    this.slotsUsed++;
    const entry: Running = {
      job,
      ctx: undefined,
      data: undefined,
      timer: undefined,
      settled: false,
      timedOutAt: undefined,
    };
    this.running.set(job.id, entry);
    const outcome = await this.runHandler(entry);
    clearTimeout(entry.timer);
    if (this.running.get(job.id) === entry) this.running.delete(job.id);
    this.slotsUsed--;
    this.buffered.noteFinished();
    if (!entry.settled) {
      entry.settled = true;
      this.report(entry, outcome);
    }
    const next = this.closing ? undefined : this.buffered.shift();
    if (next) void this.execute(next);
    if (this.slotsUsed === 0 && this.idleWaiters.length > 0) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
    // The slots are shared: any lane may claim into the one that freed.
    for (const lane of this.lanes) lane.fetcher.pump();
  }

  private async runHandler(entry: Running): Promise<Outcome> {
    const { job } = entry;
    if (job.type === '') {
      return {
        kind: 'failed',
        error: new UnrecoverableError(`Job "${job.id}" has no type: its hash is damaged`),
        mode: 'dead',
      };
    }
    const handler = this.handlers.get(job.type);
    if (!handler) {
      // Counts as a failed attempt, not straight to dead: during a rolling deploy another worker
      // may have this handler (DESIGN §3.7). Out of attempts, it lands in dead naming the type.
      return { kind: 'failed', error: new NoHandlerError(job.type), mode: 'retry' };
    }
    try {
      entry.data = JSON.parse(job.data);
    } catch (cause) {
      return { kind: 'failed', error: new BadJobDataError(job.id, { cause }), mode: 'dead' };
    }
    const ctx = new JobContext(job, entry.data, this.controls);
    entry.ctx = ctx;
    if (this.listenerCount('active') > 0) this.emit('active', this.info(job, entry.data, 'active'));
    if (job.timeoutMs > 0) entry.timer = setTimeout(() => this.onTimeout(entry), job.timeoutMs);
    try {
      const value = await handler(ctx);
      const later = value instanceof RetryLater ? value : ctx.retryLater;
      if (later) return { kind: 'retryIn', delayMs: later.delayMs };
      return { kind: 'completed', value };
    } catch (thrown) {
      if (thrown instanceof RetryLater) return { kind: 'retryIn', delayMs: thrown.delayMs };
      const error = toError(thrown);
      return { kind: 'failed', error, mode: isUnrecoverable(error) ? 'dead' : 'retry' };
    }
  }

  /**
   * The attempt ran out of time: its signal fires and the failure is reported now, so the retry
   * policy goes on. The slot stays taken until the handler really returns, so a handler that
   * ignores its signal cannot push the worker past its concurrency.
   */
  private onTimeout(entry: Running): void {
    if (entry.settled) return;
    const error = new JobTimeoutError(entry.job.timeoutMs);
    entry.ctx?.abort(error);
    entry.settled = true;
    entry.timedOutAt = performance.now();
    this.report(entry, { kind: 'failed', error, mode: 'retry' });
  }

  private report(entry: Running, outcome: Outcome): void {
    const { job } = entry;
    if (outcome.kind === 'completed') {
      let result = '';
      if (job.keep && outcome.value !== undefined) {
        try {
          result = JSON.stringify(outcome.value) ?? '';
        } catch {
          result = JSON.stringify({ unserialisable: String(outcome.value) });
        }
      }
      this.laneFor(job).acks.push({ job, result, value: outcome.value });
      return;
    }
    const { store } = this.laneFor(job);
    const sent =
      outcome.kind === 'failed'
        ? store.fail(job, storedError(outcome.error), outcome.mode, Math.random())
        : store.retryIn(job, outcome.delayMs);
    const tracked = sent.then(
      (reply) => this.afterFail(entry, outcome, reply),
      (error: unknown) => this.reportError(toError(error), `the outcome of job ${job.id} was not recorded`),
    );
    this.reports.add(tracked);
    void tracked.finally(() => this.reports.delete(tracked));
  }

  private afterComplete(ack: Ack, code: CompleteCode): void {
    if (code === 1) {
      if (this.listenerCount('completed') > 0) {
        this.emit('completed', this.info(ack.job, ack.job.data, 'done'), ack.value);
      }
    } else if (code === 0) {
      this.reportError(new LeaseLostError(ack.job.id));
    }
  }

  private afterFail(entry: Running, outcome: Outcome, reply: FailReply): void {
    const { job } = entry;
    if (reply.code === 0) {
      this.reportError(new LeaseLostError(job.id));
      return;
    }
    if (outcome.kind !== 'failed' || reply.code === 3 || reply.code === -1) return;
    const state: JobState = reply.code === 1 ? 'delayed' : 'dead';
    const info = this.info(job, entry.data, state, outcome.error);
    if (reply.code === 1) info.dueAt = reply.dueAt;
    this.emit('failed', info, outcome.error);
    this.emit(reply.code === 1 ? 'retrying' : 'dead', info, outcome.error);
  }

  private afterExtend(jobs: readonly ClaimedJob[], codes: readonly ExtendCode[]): void {
    jobs.forEach((job, i) => {
      if (codes[i] === 2) this.dropBuffered(job.id, 'cancelled');
      if (codes[i] === 0) this.dropBuffered(job.id, 'lost');
      const entry = this.running.get(job.id);
      if (!entry || entry.job !== job) return;
      if (codes[i] === 2) entry.ctx?.abort(new JobCancelledError(job.id));
      if (codes[i] === 0 && !entry.settled) {
        // Reclaimed (this worker stalled past its lease): another worker may run it now.
        entry.settled = true;
        const error = new LeaseLostError(job.id);
        entry.ctx?.abort(error);
        this.reportError(error);
      }
    });
  }

  /** Claimed jobs that will not run here: back to the front of the queue, the attempt given back. */
  private async handBack(jobs: ClaimedJob[]): Promise<void> {
    await Promise.all(
      this.lanes.map(async (lane) => {
        const own = jobs.filter((job) => this.laneFor(job) === lane);
        if (own.length === 0) return;
        await lane.store.release(own).catch((error: unknown) => this.reportError(toError(error)));
      }),
    );
  }

  /**
   * A job waiting in the buffer was cancelled (its outcome is recorded as such, which deletes it)
   * or its lease was lost (another worker may hold it now): it never starts here.
   */
  private dropBuffered(id: string, why: 'cancelled' | 'lost'): void {
    const job = this.buffered.remove(id);
    if (!job || why === 'lost') return;
    const entry: Running = {
      job,
      ctx: undefined,
      data: undefined,
      timer: undefined,
      settled: true,
      timedOutAt: undefined,
    };
    this.report(entry, { kind: 'failed', error: new JobCancelledError(id), mode: 'retry' });
  }

  /** The jobs of one lane this worker holds leases on: waiting in the buffer, or running. */
  private heldJobs(lane: Lane): ClaimedJob[] {
    const jobs = this.buffered.jobs().filter((job) => this.laneFor(job) === lane);
    for (const entry of this.running.values()) {
      if (!entry.settled && this.laneFor(entry.job) === lane) jobs.push(entry.job);
    }
    return jobs;
  }

  /** What the worker knows of a job, for its events (getJob has the full record). */
  private info(job: ClaimedJob, data: unknown, state: JobState, error?: Error): JobInfo {
    const info: JobInfo = {
      id: job.id,
      type: job.type,
      data,
      state,
      attempt: job.attempt,
      maxAttempts: job.maxAttempts,
      priority: job.priority,
      dueAt: job.dueAt,
      createdAt: job.createdAt,
      startedAt: job.startedAt,
      errors: [],
      backoff: decodeBackoff(job.backoff),
    };
    if (state === 'done' || state === 'dead' || error) info.finishedAt = Math.round(this.clock.now());
    if (error)
      info.errors = [{ ...storedError(error), at: Math.round(this.clock.now()), attempt: job.attempt }];
    if (job.key) info.key = job.key;
    if (job.timeoutMs > 0) info.timeoutMs = job.timeoutMs;
    return info;
  }

  private reportError(error: Error, context?: string): void {
    if (context) error.message = `${error.message} (${context})`;
    if (this.listenerCount('error') > 0) this.emit('error', error);
    else console.error(`dueq worker "${this.name}": ${error.message}`);
  }

  private waitForIdle(timeoutMs: number): Promise<void> {
    if (this.slotsUsed === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * Stops claiming, lets running jobs finish for up to `timeoutMs`, then fires the signals of
   * those still running and hands them back to the queue at once (they run again elsewhere
   * instead of waiting out their leases). Resolves when every outcome is recorded.
   */
  close(options: { timeoutMs?: number } = {}): Promise<void> {
    if (!this.closing) {
      const timeoutMs =
        options.timeoutMs === undefined
          ? DEFAULT_CLOSE_TIMEOUT_MS
          : checkInteger('timeoutMs', options.timeoutMs, 0, LIMITS.delayMs);
      this.closing = this.shutdown(timeoutMs);
    }
    return this.closing;
  }

  private async shutdown(timeoutMs: number): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.fetcher.stop()));
    // Jobs claimed ahead never started: back to the queue at once.
    await this.handBack(this.buffered.drain());
    await this.waitForIdle(timeoutMs);
    const unfinished: ClaimedJob[] = [];
    for (const entry of this.running.values()) {
      if (entry.settled) continue;
      entry.settled = true;
      entry.ctx?.abort(new ShutdownError());
      unfinished.push(entry.job);
    }
    await this.handBack(unfinished);
    await Promise.all(this.lanes.map((lane) => lane.acks.drain()));
    await Promise.allSettled([...this.reports]);
    await Promise.all(this.lanes.flatMap((lane) => [lane.heartbeat.stop(), lane.reclaimer?.stop()]));
    await Promise.all([
      ...this.lanes.map((lane) => closeClient(lane.blocker, true)),
      closeClient(this.subscriber),
      closeClient(this.command),
    ]);
  }
}

function normalizeHandlers(handlers: unknown): {
  handlers: Map<string, Handler>;
  typeOptions: Map<string, string>;
} {
  const map = new Map<string, Handler>();
  const typeOptions = new Map<string, string>();
  const add = (type: string, value: unknown) => {
    if (isJobDefinition(value)) {
      if (value.type !== type) {
        throw new ValidationError(
          `Handler "${type}" is the definition of job type "${value.type}"; use the same name`,
        );
      }
      if (map.has(type)) throw new ValidationError(`Job type "${type}" is defined twice`);
      map.set(type, value.handle);
      if (value.typeOptions) typeOptions.set(type, value.typeOptions);
    } else if (typeof value === 'function') {
      map.set(type, value as Handler);
    } else {
      throw new ValidationError(
        `Expected handler for "${type}" to be a function or a defineJob definition, got ${describe(value)}`,
      );
    }
  };
  if (Array.isArray(handlers)) {
    for (const [i, definition] of handlers.entries()) {
      if (!isJobDefinition(definition)) {
        throw new ValidationError(
          `Expected handlers[${i}] to be a defineJob definition, got ${describe(definition)}`,
        );
      }
      add(definition.type, definition);
    }
  } else {
    const object = checkPlainObject('handlers', handlers);
    for (const [type, value] of Object.entries(object)) add(type, value);
  }
  if (map.size === 0) throw new ValidationError('Expected `handlers` to name at least one job type');
  return { handlers: map, typeOptions };
}
