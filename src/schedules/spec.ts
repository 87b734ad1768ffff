import { LIMITS, SCHEDULES } from '../defaults.js';
import { ValidationError } from '../errors.js';
import type { DefaultJobOptions, JobOptions } from '../queue/job-options.js';
import { addDefaults, prepareJob } from '../queue/job-options.js';
import { checkInteger, checkKnownKeys, checkPlainObject, checkString } from '../util/checks.js';
import { describe } from '../util/describe.js';
import { parseDuration } from '../util/duration.js';
import { checkCron } from './fire-times.js';
import type { CatchUp } from './plan.js';

export interface ScheduleOptions {
  /** A cron pattern (5 fields, or 6 with seconds), read in `tz`. Give `cron` or `every`. */
  cron?: string;
  /** An interval (ms or '5m'), at least 1 s: fires at the start (or creation) time plus whole intervals. */
  every?: number | string;
  /** IANA time zone for `cron`, e.g. 'Asia/Shanghai'. @default UTC */
  tz?: string;
  /** The job type each occurrence runs. */
  type: string;
  data?: unknown;
  /** Options of each occurrence's job (not delay, at, id or key: the schedule sets those). */
  opts?: Pick<JobOptions, 'priority' | 'maxAttempts' | 'backoff' | 'timeout' | 'keepCompleted'>;
  /** No occurrence before this instant. */
  startAt?: Date | number;
  /** No occurrence after this instant. */
  endAt?: Date | number;
  /** At most this many occurrences in all. */
  limit?: number;
  /** 'skip' (default): an occurrence that comes due while the previous one still waits or runs is dropped. */
  overlap?: 'skip' | 'allow';
  /** Fire times missed while no Scheduler ran: 'none', 'one' (default: the latest runs once) or 'all'. */
  catchUp?: CatchUp;
}

/** A schedule as stored in the queue's `schedules` hash (JSON), and as `queue.schedules()` returns it. */
export interface ScheduleRecord {
  name: string;
  cron?: string;
  tz?: string;
  everyMs?: number;
  type: string;
  /** The occurrences' data, as JSON. */
  data: string;
  /** The occurrences' job options as add.lua takes them ('' where not set). */
  job: { priority: number; maxAttempts: string; backoff: string; timeoutMs: string; keep: string };
  /** The scheduling Queue's defaults, for options neither the schedule nor the job type sets. */
  fallback: { maxAttempts: number; backoff: string; timeoutMs: string };
  anchor: number;
  startAt?: number;
  endAt?: number;
  limit?: number;
  overlap: 'skip' | 'allow';
  catchUp: CatchUp;
  /** Bumped by every schedule() call; occurrences of an older version are dropped. */
  version: number;
  /** The next fire time without an occurrence yet; absent once the schedule is done. */
  next?: number;
  /** Occurrences created so far. */
  count: number;
  /** The most recent occurrence's job id. */
  last?: string;
  /** Recent occurrence ids, newest last (unschedule drops those still waiting). */
  recent: string[];
  createdAt: number;
  updatedAt: number;
  done?: boolean;
}

const NAMES = [
  'cron',
  'every',
  'tz',
  'type',
  'data',
  'opts',
  'startAt',
  'endAt',
  'limit',
  'overlap',
  'catchUp',
] as const;
const OCCURRENCE_OPTIONS = ['priority', 'maxAttempts', 'backoff', 'timeout', 'keepCompleted'] as const;

function instant(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0 || ms > 8.64e15) {
    throw new ValidationError(
      `Expected \`${name}\` to be a valid Date or ms since the epoch, got ${describe(value)}`,
    );
  }
  return ms;
}

export function checkScheduleName(name: unknown): string {
  return checkString('schedule name', name, LIMITS.typeLength);
}

/**
 * Checks a schedule and turns it into its stored record (without version, next and counters,
 * which the set script and the caller fill in). Throws a ValidationError on the first problem.
 */
export function prepareSchedule(
  name: unknown,
  options: unknown,
  defaults: DefaultJobOptions,
  maxPayloadBytes: number,
  now: number,
): Omit<ScheduleRecord, 'version' | 'count' | 'recent' | 'createdAt' | 'updatedAt'> {
  const checkedName = checkScheduleName(name);
  const object = checkPlainObject('schedule options', options);
  checkKnownKeys('schedule options', object, NAMES);
  const o = object as unknown as ScheduleOptions;
  if ((o.cron === undefined) === (o.every === undefined)) {
    throw new ValidationError('Give a schedule either `cron` or `every`');
  }
  if (o.tz !== undefined && o.cron === undefined)
    throw new ValidationError('`tz` applies to `cron` schedules only');
  const timing: { cron?: string; tz?: string; everyMs?: number } = {};
  if (o.cron !== undefined) {
    const cron = checkString('cron', o.cron, 200);
    const tz = o.tz === undefined ? undefined : checkString('tz', o.tz, 100);
    try {
      checkCron(cron, tz);
    } catch (error) {
      throw new ValidationError(
        `Expected \`cron\` to be a cron pattern like '0 2 * * *'${tz ? ` with a valid \`tz\`` : ''}: ${(error as Error).message}`,
      );
    }
    timing.cron = cron;
    if (tz) timing.tz = tz;
  } else {
    const everyMs = parseDuration('every', o.every, LIMITS.delayMs);
    if (everyMs < SCHEDULES.minEveryMs) {
      throw new ValidationError(
        `Expected \`every\` to be at least ${SCHEDULES.minEveryMs} ms, got ${describe(o.every)}`,
      );
    }
    timing.everyMs = everyMs;
  }
  const opts = o.opts === undefined ? {} : checkPlainObject('opts', o.opts);
  checkKnownKeys('schedule opts', opts, OCCURRENCE_OPTIONS);
  const job = prepareJob(o.type, o.data, opts, defaults, maxPayloadBytes);
  const fallbacks = addDefaults(defaults);
  const startAt = instant('startAt', o.startAt);
  const endAt = instant('endAt', o.endAt);
  if (startAt !== undefined && endAt !== undefined && endAt < startAt) {
    throw new ValidationError('Expected `endAt` to be after `startAt`');
  }
  const overlap = o.overlap ?? 'skip';
  if (overlap !== 'skip' && overlap !== 'allow') {
    throw new ValidationError(`Expected \`overlap\` to be 'skip' or 'allow', got ${describe(o.overlap)}`);
  }
  const catchUp = o.catchUp ?? 'one';
  if (catchUp !== 'none' && catchUp !== 'one' && catchUp !== 'all') {
    throw new ValidationError(
      `Expected \`catchUp\` to be 'none', 'one' or 'all', got ${describe(o.catchUp)}`,
    );
  }
  const record: Omit<ScheduleRecord, 'version' | 'count' | 'recent' | 'createdAt' | 'updatedAt'> = {
    name: checkedName,
    ...timing,
    type: job.type,
    data: job.data,
    job: {
      priority: job.priority,
      maxAttempts: job.maxAttempts === undefined ? '' : String(job.maxAttempts),
      backoff: job.backoff ?? '',
      timeoutMs: job.timeoutMs === undefined ? '' : String(job.timeoutMs),
      keep: job.keep ?? '',
    },
    fallback: {
      maxAttempts: fallbacks.maxAttempts,
      backoff: fallbacks.backoff,
      timeoutMs: fallbacks.timeoutMs === undefined ? '' : String(fallbacks.timeoutMs),
    },
    anchor: startAt ?? now,
    overlap,
    catchUp,
  };
  if (startAt !== undefined) record.startAt = startAt;
  if (endAt !== undefined) record.endAt = endAt;
  if (o.limit !== undefined) record.limit = checkInteger('limit', o.limit, 1, 1e12);
  return record;
}

/** The record's timing, for fire-times.ts. */
export function timingOf(record: ScheduleRecord): import('./fire-times.js').Timing {
  const timing: import('./fire-times.js').Timing = { anchor: record.anchor };
  if (record.cron !== undefined) timing.cron = record.cron;
  if (record.tz !== undefined) timing.tz = record.tz;
  if (record.everyMs !== undefined) timing.everyMs = record.everyMs;
  if (record.startAt !== undefined) timing.startAt = record.startAt;
  if (record.endAt !== undefined) timing.endAt = record.endAt;
  return timing;
}

/** Reads a stored record; cjson writes an empty array as {}. */
export function parseRecord(json: string): ScheduleRecord {
  const record = JSON.parse(json) as ScheduleRecord;
  if (!Array.isArray(record.recent)) record.recent = [];
  return record;
}
