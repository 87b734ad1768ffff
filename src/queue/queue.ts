import { BATCH, DEFAULT_MAX_PAYLOAD_BYTES, DEFAULT_PREFIX } from '../defaults.js';
import {
  ClosedError,
  InvalidStateError,
  JobNotFoundError,
  NotReplicatedError,
  ValidationError,
} from '../errors.js';
import type { StreamEvent } from '../events/queue-events.js';
import type { Series } from '../events/series.js';
import {
  type Client,
  type ConnectionOption,
  checkConnection,
  closeClient,
  type OpenedClient,
  openClient,
} from '../redis/connection.js';
import { checkPrefix, checkQueueName, type QueueKeys, queueKeys } from '../redis/keys.js';
import { type AddDefaults, type NewJob, Store } from '../redis/store.js';
import { fireAtOrAfter } from '../schedules/fire-times.js';
import { type ScheduleInfo, scheduleInfo } from '../schedules/info.js';
import {
  checkScheduleName,
  parseRecord,
  prepareSchedule,
  type ScheduleOptions,
  type ScheduleRecord,
  timingOf,
} from '../schedules/spec.js';
import { checkInteger, checkKnownKeys, checkPlainObject } from '../util/checks.js';
import { describe } from '../util/describe.js';
import { AddBatcher } from './add-batcher.js';
import { DeadLetters } from './dead-letters.js';
import { type DoctorReport, diagnose, repair } from './doctor.js';
import { checkPage, checkSeriesOptions, checkState, listJobs, readSeries, recentEvents } from './inspect.js';
import { type JobInfo, type JobState, jobInfoFromHash } from './job-info.js';
import {
  addDefaults,
  checkDefaultJobOptions,
  type DefaultJobOptions,
  type JobOptions,
  prepareJob,
} from './job-options.js';

export interface QueueOptions {
  /** Redis URL, ioredis options, or an ioredis client to share. @default localhost:6379 */
  connection?: ConnectionOption;
  /** Start of every key. @default 'dueq' */
  prefix?: string;
  /** Largest job data accepted, in bytes of JSON. @default 524288 (512 KiB) */
  maxPayloadBytes?: number;
  /** Options applied to every add unless the add gives its own. */
  defaultJobOptions?: DefaultJobOptions;
  /**
   * Confirm every add on this many replicas (WAIT, on the same connection, after each add call)
   * before it resolves, so a failover cannot lose an acknowledged add; an add that does not
   * reach them in `timeoutMs` (default 1000) rejects with NotReplicatedError, and adding it again
   * with the same `id` is safe. Not for a Redis Cluster connection. @default none: async replication
   */
  durability?: { replicas: number; timeoutMs?: number };
}

export interface BulkJob {
  type: string;
  data?: unknown;
  opts?: JobOptions;
}

/** Counters since the queue began: every job added, every outcome. */
export interface QueueTotals {
  added: number;
  completed: number;
  /** Failed attempts (a job that failed twice counts twice). */
  failed: number;
  retried: number;
  dead: number;
  /** Jobs taken back from expired leases. */
  reclaimed: number;
  cancelled: number;
  replayed: number;
}

export interface QueueSnapshot {
  counts: QueueCounts;
  totals: QueueTotals;
  /** How long the oldest ready job has waited past its due time, ms (0 when none is ready). */
  oldestReadyAgeMs: number;
  /** Redis time of the snapshot, ms. */
  at: number;
}

export interface QueueCounts {
  delayed: number;
  ready: number;
  active: number;
  dead: number;
  /** Jobs completed since the queue began (completed jobs are deleted unless kept). */
  done: number;
  paused: boolean;
}

/**
 * What `cancel` did: removed a waiting job; signalled the worker running it (its AbortSignal
 * fires; the job is deleted when the attempt ends, unless it completed first); found no such job
 * (it may have completed and been deleted); or found it done or dead, with nothing to cancel.
 */
export type CancelResult = 'removed' | 'signalled' | 'not-found' | 'finished';

const QUEUE_OPTION_NAMES = [
  'connection',
  'prefix',
  'maxPayloadBytes',
  'defaultJobOptions',
  'durability',
] as const;

/**
 * The producer side and the inspection API of one queue: add jobs, look them up, cancel, run now,
 * pause, and work the dead-letter queue.
 */
export class Queue {
  readonly name: string;
  readonly prefix: string;
  readonly dead: DeadLetters;
  /** @internal the key names, for Worker and Scheduler built on this queue */
  readonly keys: QueueKeys;
  /** @internal what the queue was given, so that a Worker or Scheduler can connect alike */
  readonly connectionOption: ConnectionOption | undefined;
  private readonly opened: OpenedClient;
  private readonly store: Store;
  private readonly maxPayloadBytes: number;
  private readonly defaults: DefaultJobOptions;
  private readonly fallbacks: AddDefaults;
  private readonly adds: AddBatcher;
  private readonly durability: { replicas: number; timeoutMs: number } | undefined;
  private closed = false;

  constructor(name: string, options: QueueOptions = {}) {
    this.name = checkQueueName(name);
    const opts = checkPlainObject('Queue options', options);
    checkKnownKeys('Queue options', opts, QUEUE_OPTION_NAMES);
    checkConnection(options.connection);
    this.prefix = options.prefix === undefined ? DEFAULT_PREFIX : checkPrefix(options.prefix);
    this.maxPayloadBytes =
      options.maxPayloadBytes === undefined
        ? DEFAULT_MAX_PAYLOAD_BYTES
        : checkInteger('maxPayloadBytes', options.maxPayloadBytes, 2, 512 * 1024 * 1024);
    this.defaults = checkDefaultJobOptions(options.defaultJobOptions);
    this.fallbacks = addDefaults(this.defaults);
    this.keys = queueKeys(this.prefix, this.name);
    this.connectionOption = options.connection;
    this.opened = openClient(options.connection, { name: `dueq:queue:${this.name}` });
    // Connection trouble reaches each caller as its command's error; ioredis's own 'error' event
    // would print it again (or crash the process if nobody listened).
    if (this.opened.owned) this.opened.client.on('error', () => {});
    this.store = new Store(this.opened.client, this.keys);
    this.durability = checkDurability(options.durability, this.opened.client);
    this.adds = new AddBatcher((jobs) => this.addJobs(jobs));
    this.dead = new DeadLetters(this.store, this.name, () => this.ensureOpen());
  }

  /** The Redis client this queue uses (shared with the caller when one was given). */
  get client(): Client {
    return this.opened.client;
  }

  private ensureOpen(): void {
    if (this.closed) throw new ClosedError(`Queue "${this.name}"`);
  }

  /**
   * Adds one job and returns its id. Due now (no delay, or `at` in the past), it is ready at once;
   * otherwise it waits in `delayed` until Redis time reaches its due time. Every option is checked
   * first: a refused add throws and stores nothing. Adds made in the same turn of the event loop
   * share one script call.
   */
  async add(type: string, data?: unknown, options?: JobOptions): Promise<string> {
    this.ensureOpen();
    const job = prepareJob(type, data, options, this.defaults, this.maxPayloadBytes);
    return (await this.adds.add(job)).id;
  }

  /**
   * Adds many jobs, one script call per chunk of 250, and returns their ids in order. Every job is
   * checked before any is sent: one bad job refuses the whole call and stores nothing.
   */
  async addBulk(jobs: readonly BulkJob[]): Promise<string[]> {
    this.ensureOpen();
    if (!Array.isArray(jobs))
      throw new ValidationError(`Expected addBulk to get an array of jobs, got ${describe(jobs)}`);
    const prepared: NewJob[] = jobs.map((entry, i) => {
      const object = checkPlainObject(`jobs[${i}]`, entry);
      checkKnownKeys(`jobs[${i}]`, object, ['type', 'data', 'opts']);
      try {
        return prepareJob(entry.type, entry.data, entry.opts, this.defaults, this.maxPayloadBytes);
      } catch (err) {
        if (err instanceof Error) err.message = `jobs[${i}]: ${err.message}`;
        throw err;
      }
    });
    const chunks: NewJob[][] = [];
    for (let i = 0; i < prepared.length; i += BATCH.add) chunks.push(prepared.slice(i, i + BATCH.add));
    const replies = await Promise.all(chunks.map((chunk) => this.addJobs(chunk)));
    return replies.flat().map((r) => r.id);
  }

  /** One add.lua call, then, with `durability`, the replicas' confirmation on the same connection. */
  private async addJobs(jobs: NewJob[]): Promise<{ id: string; created: boolean }[]> {
    const replies = await this.store.add(jobs, this.fallbacks);
    if (this.durability) {
      const { replicas, timeoutMs } = this.durability;
      const got = await this.store.waitForReplicas(replicas, timeoutMs);
      if (got < replicas) throw new NotReplicatedError(replicas, got, timeoutMs);
    }
    return replies;
  }

  async getJob(id: string): Promise<JobInfo | null> {
    this.ensureOpen();
    if (typeof id !== 'string' || id === '')
      throw new ValidationError(`Expected a job id, got ${describe(id)}`);
    const hash = await this.store.readJob(id);
    return hash ? jobInfoFromHash(id, hash) : null;
  }

  async counts(): Promise<QueueCounts> {
    this.ensureOpen();
    const c = await this.store.counts();
    return {
      delayed: c.delayed,
      ready: c.ready,
      active: c.active,
      dead: c.dead,
      done: c.completed,
      paused: c.paused,
    };
  }

  /** One page of jobs in a state: delayed soonest first, ready in the order they will run, dead and done newest first. */
  async jobs(state: JobState, options: { offset?: number; limit?: number } = {}): Promise<JobInfo[]> {
    this.ensureOpen();
    const { offset, limit } = checkPage(options);
    return listJobs(this.store, checkState(state), offset, limit);
  }

  /** The newest entries of the queue's event stream, newest first (see QueueEvents to follow it live). */
  async recentEvents(options: { count?: number } = {}): Promise<StreamEvent[]> {
    this.ensureOpen();
    return recentEvents(this.store, checkInteger('count', options.count ?? 50, 1, 1_000));
  }

  /**
   * Throughput and lateness over time, from the per-10-second buckets the queue keeps in Redis
   * (3 hours of them): for charts. `rangeMs` defaults to 15 minutes, `stepMs` to 10 s.
   */
  async series(options: { rangeMs?: number; stepMs?: number } = {}): Promise<Series> {
    this.ensureOpen();
    const { rangeMs, stepMs } = checkSeriesOptions(options);
    return readSeries(this.store, rangeMs, stepMs);
  }

  /** Counts, totals and the age of the oldest ready job, in one consistent read of the counts. */
  async snapshot(): Promise<QueueSnapshot> {
    this.ensureOpen();
    const [c, totals] = await Promise.all([this.store.counts(), this.totals()]);
    return {
      counts: {
        delayed: c.delayed,
        ready: c.ready,
        active: c.active,
        dead: c.dead,
        done: c.completed,
        paused: c.paused,
      },
      totals,
      oldestReadyAgeMs: c.oldestReadyDueAt === undefined ? 0 : Math.max(c.now - c.oldestReadyDueAt, 0),
      at: c.now,
    };
  }

  /** Counters since the queue began (added, completed, failed attempts, …); rates are their differences over time. */
  async totals(): Promise<QueueTotals> {
    this.ensureOpen();
    const raw = await this.client.hgetall(this.keys.stats);
    const n = (field: string) => Number(raw[field] ?? 0) || 0;
    return {
      added: n('added'),
      completed: n('completed'),
      failed: n('failed'),
      retried: n('retried'),
      dead: n('dead'),
      reclaimed: n('reclaimed'),
      cancelled: n('cancelled'),
      replayed: n('replayed'),
    };
  }

  /** Removes a waiting job, or fires the AbortSignal of the running one. See CancelResult. */
  async cancel(id: string): Promise<CancelResult> {
    this.ensureOpen();
    if (typeof id !== 'string' || id === '')
      throw new ValidationError(`Expected a job id, got ${describe(id)}`);
    const { code } = await this.store.cancel(id);
    return (['not-found', 'removed', 'signalled', 'finished'] as const)[code];
  }

  /** Makes a delayed job ready now, or replays a dead one (a ready job stays as it is). Throws for a missing, running or completed job. */
  async runNow(id: string): Promise<void> {
    this.ensureOpen();
    if (typeof id !== 'string' || id === '')
      throw new ValidationError(`Expected a job id, got ${describe(id)}`);
    const { code, state } = await this.store.runNow(id);
    if (code === 0) throw new JobNotFoundError(this.name, id);
    if (code === 2) throw new InvalidStateError(id, state, 'only delayed or dead jobs can be run now');
  }

  /**
   * Creates or replaces a schedule (cron or every): each fire time becomes one ordinary job, made
   * once whatever the number of Schedulers. Replacing bumps its version: occurrences of the old
   * version that are not due yet are dropped. Returns the schedule as stored.
   */
  async schedule(name: string, options: ScheduleOptions): Promise<ScheduleInfo> {
    this.ensureOpen();
    const [seconds, micros] = await this.client.time();
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const record = prepareSchedule(name, options, this.defaults, this.maxPayloadBytes, now) as ScheduleRecord;
    const previous = await this.client.hget(this.keys.schedules, record.name);
    if (previous && record.everyMs !== undefined && record.startAt === undefined) {
      // The same interval keeps its rhythm across updates (an app that re-declares it at boot).
      const old = parseRecord(previous);
      if (old.everyMs === record.everyMs && old.startAt === undefined) record.anchor = old.anchor;
    }
    const next = fireAtOrAfter(timingOf(record), now);
    await this.store.scheduleSet(record.name, JSON.stringify(record), next);
    const stored = await this.client.hget(this.keys.schedules, record.name);
    return scheduleInfo(parseRecord(stored as string));
  }

  /** Deletes a schedule, and its occurrences that have not started. Returns whether it existed. */
  async unschedule(name: string): Promise<boolean> {
    this.ensureOpen();
    return (await this.store.scheduleRemove(checkScheduleName(name))).existed;
  }

  /** Every schedule of this queue, by name. */
  async schedules(): Promise<ScheduleInfo[]> {
    this.ensureOpen();
    const stored = await this.store.readSchedules();
    return Object.keys(stored)
      .sort()
      .map((name) => scheduleInfo(parseRecord(stored[name] as string)));
  }

  /** Stops every worker of this queue from claiming; running jobs finish, due jobs wait in ready. */
  async pause(): Promise<void> {
    this.ensureOpen();
    await this.store.setPaused(true);
  }

  async resume(): Promise<void> {
    this.ensureOpen();
    await this.store.setPaused(false);
  }

  /** Checks the queue's invariants (DESIGN §3.1); with `repair`, fixes orphans and strays. */
  async doctor(options: { repair?: boolean } = {}): Promise<DoctorReport> {
    this.ensureOpen();
    const { jobs, problems } = await diagnose(this.store);
    const repaired = options.repair && problems.length > 0 ? await repair(this.store, problems) : 0;
    return { ok: problems.length === 0, jobs, problems, repaired };
  }

  /** Sends the adds still waiting, then closes the queue's own connection (a shared one stays open). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.adds.drain();
    await closeClient(this.opened);
  }
}

function checkDurability(
  value: unknown,
  client: Client,
): { replicas: number; timeoutMs: number } | undefined {
  if (value === undefined) return undefined;
  const object = checkPlainObject('durability', value);
  checkKnownKeys('durability', object, ['replicas', 'timeoutMs']);
  const replicas = checkInteger('durability.replicas', object.replicas, 1, 100);
  const timeoutMs =
    object.timeoutMs === undefined
      ? 1_000
      : checkInteger('durability.timeoutMs', object.timeoutMs, 1, 60_000);
  // WAIT counts the replicas of the node it reaches; a Cluster client sends it to any node.
  if ('nodes' in client)
    throw new ValidationError('`durability` needs one Redis or a Sentinel URL, not a Cluster');
  return { replicas, timeoutMs };
}
