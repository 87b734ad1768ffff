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
import { type AddDefaults, type CountsReply, type NewJob, Store } from '../redis/store.js';
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
import { type DeadLetterQueue, DeadLetters } from './dead-letters.js';
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
import { checkShards, mergeDoctorReports, shardedDeadLetters, shardIndex, shardName } from './shards.js';

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
  /**
   * Split the queue into this many shards, `<name>#0` … (each its own hash tag, so in a Redis
   * Cluster they spread over the masters): for one queue too busy for one node. A job goes to the
   * shard its dedup key or id hashes to; a Worker or Scheduler given this Queue serves them all.
   * Listing, events, series and schedules are per shard (`queue.shards[i]`). @default 1
   */
  shards?: number;
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
  'shards',
] as const;

/**
 * The producer side and the inspection API of one queue: add jobs, look them up, cancel, run now,
 * pause, and work the dead-letter queue.
 */
export class Queue {
  readonly name: string;
  readonly prefix: string;
  readonly dead: DeadLetterQueue;
  /** A sharded queue's shards, each a plain queue named `<name>#<i>`; empty for a plain queue. */
  readonly shards: readonly Queue[];
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
    const shardCount = checkShards(this.name, options.shards);
    this.shards = Array.from(
      { length: shardCount > 1 ? shardCount : 0 },
      (_, i) =>
        new Queue(shardName(this.name, i), {
          ...options,
          // Every shard on this queue's connection: one socket (or one Cluster client) for all.
          connection: this.opened.client,
          shards: undefined,
        }),
    );
    this.dead =
      this.shards.length > 0
        ? shardedDeadLetters(this.name, () => {
            this.ensureOpen();
            return this.shards.map((s) => s.dead);
          })
        : new DeadLetters(this.store, this.name, () => this.ensureOpen());
  }

  /** The shard a job belongs to: by its dedup key when it has one, else by its id. */
  private shardOf(job: NewJob): Queue {
    return this.shards[shardIndex(job.key ?? job.id, this.shards.length)] as Queue;
  }

  /** For what a sharded queue does per shard only: one clear error instead of a partial answer. */
  private perShardOnly(what: string): void {
    if (this.shards.length > 0) {
      throw new ValidationError(
        `${what} is per shard on a sharded queue: ask queue.shards[0…${this.shards.length - 1}]`,
      );
    }
  }

  /** The Redis client this queue uses (shared with the caller when one was given). */
  get client(): Client {
    return this.opened.client;
  }

  /**
   * Resolves once Redis answers on this queue's connection. Adds need not wait for it (commands
   * wait for the connection), but a caller can learn that Redis is there before the first add.
   */
  async waitUntilReady(): Promise<void> {
    this.ensureOpen();
    await this.client.ping();
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
    const target = this.shards.length > 0 ? this.shardOf(job) : this;
    return (await target.adds.add(job)).id;
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
        return prepareJob(entry.type, entry.data, entry.opts, this.defaults, this.maxPayloadBytes, true);
      } catch (err) {
        if (err instanceof Error) err.message = `jobs[${i}]: ${err.message}`;
        throw err;
      }
    });
    if (this.shards.length === 0) return this.sendPrepared(prepared);
    // Every job was checked above; now each shard gets its own, in their order.
    const groups = new Map<Queue, { jobs: NewJob[]; at: number[] }>();
    prepared.forEach((job, i) => {
      const shard = this.shardOf(job);
      const group = groups.get(shard) ?? { jobs: [], at: [] };
      group.jobs.push(job);
      group.at.push(i);
      groups.set(shard, group);
    });
    const ids: string[] = new Array(prepared.length);
    await Promise.all(
      [...groups].map(async ([shard, group]) => {
        const got = await shard.sendPrepared(group.jobs);
        got.forEach((id, k) => {
          ids[group.at[k] as number] = id;
        });
      }),
    );
    return ids;
  }

  /** Checked jobs, sent in chunks of 250 (pipelined). */
  private async sendPrepared(prepared: NewJob[]): Promise<string[]> {
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
    if (this.shards.length > 0) {
      const found = await Promise.all(this.shards.map((s) => s.getJob(id)));
      return found.find((job) => job !== null) ?? null;
    }
    const hash = await this.store.readJob(id);
    return hash ? jobInfoFromHash(id, hash) : null;
  }

  async counts(): Promise<QueueCounts> {
    this.ensureOpen();
    if (this.shards.length > 0) {
      const all = await Promise.all(this.shards.map((s) => s.counts()));
      const sum = (field: Exclude<keyof QueueCounts, 'paused'>) => all.reduce((n, c) => n + c[field], 0);
      return {
        delayed: sum('delayed'),
        ready: sum('ready'),
        active: sum('active'),
        dead: sum('dead'),
        done: sum('done'),
        paused: all.every((c) => c.paused),
      };
    }
    return queueCounts(await this.store.counts());
  }

  /** One page of jobs in a state: delayed soonest first, ready in the order they will run, dead and done newest first. */
  async jobs(state: JobState, options: { offset?: number; limit?: number } = {}): Promise<JobInfo[]> {
    this.ensureOpen();
    this.perShardOnly('Listing jobs');
    const { offset, limit } = checkPage(options);
    return listJobs(this.store, checkState(state), offset, limit);
  }

  /** The newest entries of the queue's event stream, newest first (see QueueEvents to follow it live). */
  async recentEvents(options: { count?: number } = {}): Promise<StreamEvent[]> {
    this.ensureOpen();
    this.perShardOnly('recentEvents()');
    return recentEvents(this.store, checkInteger('count', options.count ?? 50, 1, 1_000));
  }

  /**
   * Throughput and lateness over time, from the per-10-second buckets the queue keeps in Redis
   * (3 hours of them): for charts. `rangeMs` defaults to 15 minutes, `stepMs` to 10 s.
   */
  async series(options: { rangeMs?: number; stepMs?: number } = {}): Promise<Series> {
    this.ensureOpen();
    this.perShardOnly('series()');
    const { rangeMs, stepMs } = checkSeriesOptions(options);
    return readSeries(this.store, rangeMs, stepMs);
  }

  /** Counts, totals and the age of the oldest ready job, in one consistent read of the counts. */
  async snapshot(): Promise<QueueSnapshot> {
    this.ensureOpen();
    this.perShardOnly('snapshot()');
    const [c, totals] = await Promise.all([this.store.counts(), this.totals()]);
    return {
      counts: queueCounts(c),
      totals,
      oldestReadyAgeMs: c.oldestReadyDueAt === undefined ? 0 : Math.max(c.now - c.oldestReadyDueAt, 0),
      at: c.now,
    };
  }

  /** Counters since the queue began (added, completed, failed attempts, …); rates are their differences over time. */
  async totals(): Promise<QueueTotals> {
    this.ensureOpen();
    if (this.shards.length > 0) {
      const all = await Promise.all(this.shards.map((s) => s.totals()));
      const total = {} as QueueTotals;
      for (const field of Object.keys(all[0] as QueueTotals) as (keyof QueueTotals)[]) {
        total[field] = all.reduce((n, t) => n + t[field], 0);
      }
      return total;
    }
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
    if (this.shards.length > 0) {
      const results = await Promise.all(this.shards.map((s) => s.cancel(id)));
      return results.find((r) => r !== 'not-found') ?? 'not-found';
    }
    const { code } = await this.store.cancel(id);
    return (['not-found', 'removed', 'signalled', 'finished'] as const)[code];
  }

  /** Makes a delayed job ready now, or replays a dead one (a ready job stays as it is). Throws for a missing, running or completed job. */
  async runNow(id: string): Promise<void> {
    this.ensureOpen();
    if (typeof id !== 'string' || id === '')
      throw new ValidationError(`Expected a job id, got ${describe(id)}`);
    if (this.shards.length > 0) {
      const found = await Promise.all(this.shards.map((s) => s.getJob(id)));
      const shard = this.shards[found.findIndex((job) => job !== null)];
      if (!shard) throw new JobNotFoundError(this.name, id);
      return shard.runNow(id);
    }
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
    this.perShardOnly('A schedule');
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
    this.perShardOnly('unschedule()');
    return (await this.store.scheduleRemove(checkScheduleName(name))).existed;
  }

  /** Every schedule of this queue, by name. */
  async schedules(): Promise<ScheduleInfo[]> {
    this.ensureOpen();
    this.perShardOnly('schedules()');
    const stored = await this.store.readSchedules();
    return Object.keys(stored)
      .sort()
      .map((name) => scheduleInfo(parseRecord(stored[name] as string)));
  }

  /** Stops every worker of this queue from claiming; running jobs finish, due jobs wait in ready. */
  async pause(): Promise<void> {
    this.ensureOpen();
    if (this.shards.length > 0) await Promise.all(this.shards.map((s) => s.pause()));
    else await this.store.setPaused(true);
  }

  async resume(): Promise<void> {
    this.ensureOpen();
    if (this.shards.length > 0) await Promise.all(this.shards.map((s) => s.resume()));
    else await this.store.setPaused(false);
  }

  /** Checks the queue's invariants (DESIGN §3.1); with `repair`, fixes orphans and strays. */
  async doctor(options: { repair?: boolean } = {}): Promise<DoctorReport> {
    this.ensureOpen();
    if (this.shards.length > 0) {
      return mergeDoctorReports(await Promise.all(this.shards.map((s) => s.doctor(options))));
    }
    const { jobs, problems } = await diagnose(this.store);
    const repaired = options.repair && problems.length > 0 ? await repair(this.store, problems) : 0;
    return { ok: problems.length === 0, jobs, problems, repaired };
  }

  /** Sends the adds still waiting, then closes the queue's own connection (a shared one stays open). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.shards.map((s) => s.close()));
    await this.adds.drain();
    await closeClient(this.opened);
  }
}

/** What counts.lua says, as `counts()` tells it. */
function queueCounts(c: CountsReply): QueueCounts {
  return {
    delayed: c.delayed,
    ready: c.ready,
    active: c.active,
    dead: c.dead,
    done: c.completed,
    paused: c.paused,
  };
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
