import type { Redis } from 'ioredis';
import { BATCH, ERROR_HISTORY } from '../defaults.js';
import { RedisError } from '../errors.js';
import { registerScripts, runScript, type ScriptName } from '../scripts/loader.js';
import type { Json } from '../util/payload.js';
import type { Client } from './connection.js';
import { jobKey, type QueueKeys } from './keys.js';

/**
 * The one layer that runs dueq's scripts: Queue, Worker and Scheduler call these typed methods,
 * never Redis directly for a state change. Each method names the script it runs; the script's
 * header documents its keys, arguments and codes.
 */

/** A job as `add.lua` stores it: validated and serialised by queue/job-options.ts. */
export interface NewJob {
  id: string;
  type: string;
  /** JSON, or (addBulk) a function that makes it, called as the job's batch is sent. */
  data: Json;
  delayMs: number | undefined;
  atMs: number | undefined;
  priority: number;
  /** Given by the add itself; otherwise the type's registered option or the queue default applies. */
  maxAttempts: number | undefined;
  backoff: string | undefined;
  timeoutMs: number | undefined;
  key: string | undefined;
  keep: string | undefined;
}

/** What add.lua uses when neither the add nor the job type's registered options set a value. */
export interface AddDefaults {
  maxAttempts: number;
  backoff: string;
  timeoutMs: number | undefined;
}

/** A job as `claim.lua` hands it to a worker. */
export interface ClaimedJob {
  id: string;
  type: string;
  data: string;
  attempt: number;
  maxAttempts: number;
  timeoutMs: number;
  backoff: string;
  dueAt: number;
  key: string;
  /** The job is kept after it completes, so its result is stored. */
  keep: boolean;
  createdAt: number;
  priority: number;
  token: string;
  /** When this attempt started: Redis time of the claim, ms. */
  startedAt: number;
}

export interface ClaimReply {
  /** Redis time in microseconds since the epoch, read inside the script. */
  redisTimeUs: number;
  /** Due time of the earliest delayed job (ms), or -1. */
  nextDue: number;
  paused: boolean;
  /** Work is left in `ready` (or due in `delayed`) after this claim. */
  more: boolean;
  jobs: ClaimedJob[];
}

export interface Lease {
  id: string;
  token: string;
  /** The job's dedup key ('' for none), so scripts that free it can declare it in KEYS. */
  key: string;
}

export type CompleteCode = 1 | 0 | -1;
export type ExtendCode = 1 | 2 | 0;

export interface FailReply {
  /** 1 retrying, 2 dead, 3 deleted after a cancel, 0 lease gone, -1 job gone. */
  code: 1 | 2 | 3 | 0 | -1;
  dueAt: number;
}

export interface PromoteReply {
  moved: number;
  nextDue: number;
  readyLength: number;
  backpressure: boolean;
  /** Redis time when the pass ran. */
  now: number;
}

export interface CountsReply {
  delayed: number;
  ready: number;
  active: number;
  dead: number;
  keptDone: number;
  completed: number;
  paused: boolean;
  /** Due time of the oldest ready job, or undefined when none is ready. */
  oldestReadyDueAt: number | undefined;
  /** Redis time of the snapshot, ms. */
  now: number;
}

type Arg = string | number;

/** A schedule occurrence's job id: the schedule name and the fire time, so it is made once. */
export function occurrenceId(schedule: string, fireTime: number): string {
  return `sched:${schedule}:${fireTime}`;
}

const CLAIM_FIELDS = 12;
/**
 * add.lua's per-job options: '' for a plain job (most of them), else only the options given, as
 * JSON. `keyAt` is where the job's dedup key will sit in KEYS (1-based, after every job hash).
 */
function addOptions(job: NewJob, keyAt: number): string {
  if (
    job.delayMs === undefined &&
    job.atMs === undefined &&
    job.priority === 0 &&
    job.maxAttempts === undefined &&
    job.backoff === undefined &&
    job.timeoutMs === undefined &&
    job.key === undefined &&
    job.keep === undefined
  ) {
    return '';
  }
  return JSON.stringify({
    delayMs: job.delayMs,
    atMs: job.atMs,
    priority: job.priority || undefined,
    maxAttempts: job.maxAttempts,
    backoff: job.backoff,
    timeoutMs: job.timeoutMs,
    keep: job.keep,
    key: job.key,
    keyAt: job.key === undefined ? undefined : keyAt,
  });
}

export class Store {
  constructor(
    readonly client: Client,
    readonly keys: QueueKeys,
  ) {
    registerScripts(client);
  }

  private run<T>(name: ScriptName, keys: readonly string[], args: readonly Arg[]): Promise<T> {
    return runScript<T>(this.client, name, keys, args);
  }

  private job(id: string): string {
    return jobKey(this.keys, id);
  }

  /** A job's dedup key, or its hash again as a stand-in (scripts take a fixed number of keys per job). */
  private dedupOr(lease: Lease): string {
    return lease.key ? this.keys.dedupPrefix + lease.key : this.job(lease.id);
  }

  /** add.lua: one call per chunk; `jobs` must fit one chunk (BATCH.add). */
  async add(jobs: readonly NewJob[], defaults: AddDefaults): Promise<{ id: string; created: boolean }[]> {
    const k = this.keys;
    const keys: string[] = [k.delayed, k.ready, k.prio, k.meta, k.wake, k.stats, k.types, k.events, k.series];
    const args: Arg[] = [
      k.jobPrefix,
      jobs.length,
      defaults.maxAttempts,
      defaults.backoff,
      defaults.timeoutMs ?? '',
    ];
    const dedupKeys: string[] = [];
    // Dedup keys go after every job hash: the next one lands at KEYS[firstDedupAt + its index].
    const firstDedupAt = keys.length + jobs.length + 1;
    for (const job of jobs) {
      keys.push(this.job(job.id));
      args.push(
        job.id,
        job.type,
        typeof job.data === 'string' ? job.data : job.data(),
        addOptions(job, firstDedupAt + dedupKeys.length),
      );
      if (job.key !== undefined) dedupKeys.push(k.dedupPrefix + job.key);
    }
    keys.push(...dedupKeys);
    const [created, ...holders] = await this.run<string[]>('add', keys, args);
    if (created?.length !== jobs.length) throw new RedisError('add: reply does not match the jobs sent');
    let h = 0;
    return jobs.map((job, i) =>
      created[i] === '1' ? { id: job.id, created: true } : { id: String(holders[h++]), created: false },
    );
  }

  /** WAIT: how many replicas have every write this connection made so far. */
  async waitForReplicas(replicas: number, timeoutMs: number): Promise<number> {
    return Number(await (this.client as Redis).wait(replicas, timeoutMs));
  }

  /** claim.lua */
  async claim(wanted: number, leaseMs: number, token: string): Promise<ClaimReply> {
    const k = this.keys;
    const reply = await this.run<Arg[]>(
      'claim',
      [
        k.delayed,
        k.ready,
        k.prio,
        k.active,
        k.meta,
        k.wake,
        `${k.base}claim:${token}`,
        k.dead,
        k.done,
        k.schedules,
        k.stats,
        k.scheduleCurrent,
        k.events,
        k.series,
      ],
      // A claim promotes no more than it takes: the Scheduler's promoter moves the rest of a burst
      // in its own short calls, so no claim holds Redis long.
      [k.jobPrefix, wanted, leaseMs, token, Math.min(wanted, BATCH.promote)],
    );
    const flags = Number(reply[3]);
    const redisTimeUs = Number(reply[0]) * 1e6 + Number(reply[1]);
    const startedAt = Math.floor(redisTimeUs / 1000);
    const jobs: ClaimedJob[] = [];
    for (let i = 4; i + CLAIM_FIELDS <= reply.length; i += CLAIM_FIELDS) {
      jobs.push({
        id: String(reply[i]),
        type: String(reply[i + 1]),
        data: String(reply[i + 2]),
        attempt: Number(reply[i + 3]),
        maxAttempts: Number(reply[i + 4]) || 1,
        timeoutMs: Number(reply[i + 5]) || 0,
        backoff: String(reply[i + 6]),
        dueAt: Number(reply[i + 7]),
        key: String(reply[i + 8]),
        keep: reply[i + 9] !== '',
        createdAt: Number(reply[i + 10]),
        priority: Number(reply[i + 11]) || 0,
        token,
        startedAt,
      });
    }
    return {
      redisTimeUs,
      nextDue: Number(reply[2]),
      paused: (flags & 1) !== 0,
      more: (flags & 2) !== 0,
      jobs,
    };
  }

  /** complete.lua: `results` are JSON strings, stored only for jobs kept after completion. */
  complete(leases: readonly Lease[], results: readonly string[]): Promise<CompleteCode[]> {
    const k = this.keys;
    const keys: string[] = [k.active, k.done, k.stats, k.events, k.series];
    const args: Arg[] = [k.jobPrefix, k.dedupPrefix, leases.length, BATCH.retention];
    leases.forEach((lease, i) => {
      keys.push(this.job(lease.id), this.dedupOr(lease));
      args.push(lease.id, lease.token, results[i] ?? '');
    });
    return this.run<CompleteCode[]>('complete', keys, args);
  }

  /** fail.lua */
  async fail(
    lease: Lease,
    error: { message: string; stack: string },
    mode: 'retry' | 'dead',
    random: number,
  ): Promise<FailReply> {
    const k = this.keys;
    const [code, dueAt] = await this.run<[FailReply['code'], number]>(
      'fail',
      [
        this.job(lease.id),
        k.active,
        k.delayed,
        k.dead,
        k.stats,
        k.wake,
        this.dedupOr(lease),
        k.events,
        k.series,
      ],
      [lease.id, lease.token, k.dedupPrefix, error.message, error.stack, mode, random, ERROR_HISTORY.count],
    );
    return { code, dueAt };
  }

  /** retry-in.lua */
  async retryIn(lease: Lease, delayMs: number): Promise<FailReply> {
    const k = this.keys;
    const [code, dueAt] = await this.run<[FailReply['code'], number]>(
      'retryIn',
      [this.job(lease.id), k.active, k.delayed, k.wake, this.dedupOr(lease), k.events],
      [lease.id, lease.token, k.dedupPrefix, delayMs],
    );
    return { code, dueAt };
  }

  /** extend.lua */
  extend(leases: readonly Omit<Lease, 'key'>[], leaseMs: number): Promise<ExtendCode[]> {
    const keys = [this.keys.active, ...leases.map((l) => this.job(l.id))];
    const args: Arg[] = [leases.length, leaseMs];
    for (const l of leases) args.push(l.id, l.token);
    return this.run<ExtendCode[]>('extend', keys, args);
  }

  /** release.lua */
  release(leases: readonly Lease[]): Promise<number> {
    const k = this.keys;
    const keys = [
      k.active,
      k.ready,
      k.prio,
      k.wake,
      k.stats,
      k.events,
      ...leases.flatMap((l) => [this.job(l.id), this.dedupOr(l)]),
    ];
    const args: Arg[] = [leases.length, k.dedupPrefix];
    for (const l of leases) args.push(l.id, l.token);
    return this.run<number>('release', keys, args);
  }

  /** progress.lua */
  async progress(lease: Omit<Lease, 'key'>, value: number): Promise<boolean> {
    return (
      (await this.run<number>('progress', [this.job(lease.id)], [lease.token, JSON.stringify(value)])) === 1
    );
  }

  /** reclaim.lua */
  async reclaim(limit: number, random: number): Promise<{ reclaimed: number; dead: number }> {
    const k = this.keys;
    const [reclaimed, dead] = await this.run<[number, number]>(
      'reclaim',
      [k.active, k.delayed, k.dead, k.stats, k.wake, k.ready, k.prio, k.done, k.events, k.series],
      [k.jobPrefix, k.dedupPrefix, limit, random, ERROR_HISTORY.count],
    );
    return { reclaimed, dead };
  }

  /** promote.lua */
  async promote(limit: number, maxReady: number): Promise<PromoteReply> {
    const k = this.keys;
    const [moved, nextDue, readyLength, backpressure, now] = await this.run<
      [number, number, number, number, number]
    >(
      'promote',
      [
        k.delayed,
        k.ready,
        k.prio,
        k.meta,
        k.wake,
        k.active,
        k.dead,
        k.done,
        k.schedules,
        k.stats,
        k.scheduleCurrent,
      ],
      [k.jobPrefix, limit, maxReady],
    );
    return { moved, nextDue, readyLength, backpressure: backpressure === 1, now };
  }

  /** cancel.lua */
  async cancel(id: string): Promise<{ code: 0 | 1 | 2 | 3; state: string }> {
    const k = this.keys;
    const [code, state] = await this.run<[0 | 1 | 2 | 3, string]>(
      'cancel',
      [this.job(id), k.delayed, k.ready, k.prio, k.stats, k.events],
      [id, k.dedupPrefix, k.control],
    );
    return { code, state };
  }

  /** run-now.lua */
  async runNow(id: string): Promise<{ code: 0 | 1 | 2; state: string }> {
    const k = this.keys;
    const [code, state] = await this.run<[0 | 1 | 2, string]>(
      'runNow',
      [this.job(id), k.delayed, k.ready, k.prio, k.dead, k.meta, k.wake, k.events],
      [id, k.dedupPrefix],
    );
    return { code, state };
  }

  /** dead-replay.lua: one batch; `requestId` makes a re-sent call a no-op. */
  deadReplay(limit: number, requestId: string): Promise<number> {
    const k = this.keys;
    return this.run<number>(
      'deadReplay',
      [k.dead, k.ready, k.prio, k.meta, k.wake, k.stats, `${k.base}receipt:${requestId}`, k.events],
      [k.jobPrefix, k.dedupPrefix, limit],
    );
  }

  /** dead-remove.lua */
  async deadRemove(id: string): Promise<{ code: 0 | 1 | 2; state: string }> {
    const [code, state] = await this.run<[0 | 1 | 2, string]>(
      'deadRemove',
      [this.job(id), this.keys.dead],
      [id],
    );
    return { code, state };
  }

  /** dead-purge.lua: one batch. */
  deadPurge(limit: number): Promise<number> {
    return this.run<number>('deadPurge', [this.keys.dead], [this.keys.jobPrefix, limit]);
  }

  /** trim-done.lua: one batch. */
  trimDone(limit: number): Promise<number> {
    return this.run<number>('trimDone', [this.keys.done], [this.keys.jobPrefix, limit]);
  }

  /** counts.lua */
  async counts(): Promise<CountsReply> {
    const k = this.keys;
    const r = await this.run<number[]>(
      'counts',
      [k.delayed, k.ready, k.prio, k.active, k.dead, k.done, k.stats, k.meta],
      [k.jobPrefix],
    );
    return {
      delayed: r[0] ?? 0,
      ready: r[1] ?? 0,
      active: r[2] ?? 0,
      dead: r[3] ?? 0,
      keptDone: r[4] ?? 0,
      completed: r[5] ?? 0,
      paused: r[6] === 1,
      oldestReadyDueAt: r[7] === undefined || r[7] === -1 ? undefined : r[7],
      now: r[8] ?? 0,
    };
  }

  /** pause.lua */
  async setPaused(paused: boolean): Promise<void> {
    await this.run<number>('pause', [this.keys.meta, this.keys.wake, this.keys.events], [paused ? '1' : '0']);
  }

  /** locate.lua: one job's hash and where it is, read atomically. */
  async locate(id: string): Promise<{
    hash: Record<string, string> | null;
    in: Array<'delayed' | 'ready' | 'active' | 'dead' | 'done'>;
  }> {
    const k = this.keys;
    const [flat, flags] = await this.run<[string[], number[]]>(
      'locate',
      [this.job(id), k.delayed, k.ready, k.prio, k.active, k.dead, k.done],
      [id],
    );
    let hash: Record<string, string> | null = null;
    if (flat.length > 0) {
      hash = {};
      for (let i = 0; i + 1 < flat.length; i += 2) hash[flat[i] as string] = flat[i + 1] as string;
    }
    const names = ['delayed', 'ready', 'active', 'dead', 'done'] as const;
    return { hash, in: names.filter((_, i) => flags[i] === 1) };
  }

  /** repair.lua: puts one job where its hash says it belongs. */
  repair(id: string): Promise<'ok' | 'dropped' | 'deduped' | 'placed'> {
    const k = this.keys;
    return this.run(
      'repair',
      [this.job(id), k.delayed, k.ready, k.prio, k.active, k.dead, k.done, k.wake],
      [id],
    );
  }

  /** schedule-set.lua: returns the new version. */
  async scheduleSet(name: string, recordJson: string, next: number | undefined): Promise<number> {
    const k = this.keys;
    return this.run<number>(
      'scheduleSet',
      [k.schedules, k.delayed],
      [name, recordJson, k.jobPrefix, next ?? ''],
    );
  }

  /** schedule-remove.lua */
  async scheduleRemove(name: string): Promise<{ existed: boolean; dropped: number }> {
    const k = this.keys;
    const [existed, dropped] = await this.run<[number, number]>(
      'scheduleRemove',
      [k.schedules, k.delayed, k.ready, k.prio, k.scheduleCurrent],
      [name, k.jobPrefix],
    );
    return { existed: existed === 1, dropped };
  }

  /** schedule-fire.lua */
  async scheduleFire(plan: {
    name: string;
    version: number;
    from: number | undefined;
    next: number | undefined;
    fires: readonly number[];
    skipped: number;
  }): Promise<{ created: number; skipped: number; outcome: 'ok' | 'moved' | 'gone' }> {
    const k = this.keys;
    const keys = [
      k.schedules,
      k.delayed,
      k.ready,
      k.prio,
      k.meta,
      k.wake,
      k.stats,
      k.types,
      k.scheduleCurrent,
      k.events,
      k.series,
    ];
    for (const fire of plan.fires) keys.push(this.job(occurrenceId(plan.name, fire)));
    const [created, skipped, outcome] = await this.run<[number, number, 'ok' | 'moved' | 'gone']>(
      'scheduleFire',
      keys,
      [plan.name, plan.version, plan.from ?? '', plan.next ?? '', k.jobPrefix, plan.skipped, ...plan.fires],
    );
    return { created, skipped, outcome };
  }

  /** All schedules, as stored (JSON by name). */
  readSchedules(): Promise<Record<string, string>> {
    return this.client.hgetall(this.keys.schedules);
  }

  /** trim-series.lua: one batch. */
  trimSeries(retentionMs: number, bucketMs: number, fields: readonly string[]): Promise<number> {
    return this.run<number>(
      'trimSeries',
      [this.keys.series, this.keys.meta],
      [retentionMs, bucketMs, 30, ...fields],
    );
  }

  /** Registers job types' own options (defineJob), applied to later adds that do not set theirs. */
  async registerTypes(options: ReadonlyMap<string, string>): Promise<void> {
    if (options.size === 0) return;
    await this.client.hset(this.keys.types, Object.fromEntries(options));
  }

  /** The whole job hash, for inspection (read only). */
  async readJob(id: string): Promise<Record<string, string> | null> {
    const hash = await this.client.hgetall(this.job(id));
    return Object.keys(hash).length === 0 ? null : hash;
  }
}
