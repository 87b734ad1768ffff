import { DEFAULT_MAX_ATTEMPTS, LIMITS } from '../defaults.js';
import { ValidationError } from '../errors.js';
import type { AddDefaults, NewJob } from '../redis/store.js';
import { checkInteger, checkKnownKeys, checkPlainObject, checkString } from '../util/checks.js';
import { describe } from '../util/describe.js';
import { parseDuration } from '../util/duration.js';
import { newJobId } from '../util/ids.js';
import { checkPayload, serializePayload } from '../util/payload.js';
import { type BackoffOption, encodeBackoff } from './backoff.js';

/** How many completed jobs to keep for inspection, and for how long. */
export interface KeepCompleted {
  /** Keep at most this many (the newest). @default no limit */
  count?: number;
  /** Delete kept jobs older than this (ms or '1h'). @default no limit */
  ageMs?: number | string;
}

export interface JobOptions {
  /** Run after this long (ms or a duration like '30m'), counted from Redis time when the add arrives. */
  delay?: number | string;
  /** Run at this instant (a Date or ms since the epoch). Compared with Redis time, not the local clock. */
  at?: Date | number;
  /** Your own job id. Adding an id that exists returns it and adds nothing. @default a random id */
  id?: string;
  /** Dedup key: while a job with this key waits or runs, adding another returns that job's id. */
  key?: string;
  /** Among ready jobs, higher runs first. An integer from 0 to 1,000,000. @default 0 */
  priority?: number;
  /** Attempts before the job goes to the dead-letter queue. @default 3 */
  maxAttempts?: number;
  /** Delay before each retry. @default exponential from 1 s, doubling, capped at 1 h */
  backoff?: BackoffOption;
  /** Per-attempt run limit (ms or '30s'): the handler's AbortSignal fires and the attempt fails. */
  timeout?: number | string;
  /** Keep the job after it completes, to look it up with its result. @default false: deleted */
  keepCompleted?: boolean | KeepCompleted;
}

export const JOB_OPTION_NAMES = [
  'delay',
  'at',
  'id',
  'key',
  'priority',
  'maxAttempts',
  'backoff',
  'timeout',
  'keepCompleted',
] as const;

/** Options that make sense as queue-wide defaults (Queue option `defaultJobOptions`). */
export type DefaultJobOptions = Pick<
  JobOptions,
  'priority' | 'maxAttempts' | 'backoff' | 'timeout' | 'keepCompleted'
>;

export const DEFAULT_JOB_OPTION_NAMES = JOB_OPTION_NAMES.filter(
  (name): name is keyof DefaultJobOptions => !['delay', 'at', 'id', 'key'].includes(name),
);

function encodeKeep(value: unknown): string | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return '0:0';
  const object = checkPlainObject('keepCompleted', value);
  checkKnownKeys('keepCompleted', object, ['count', 'ageMs']);
  const count = object.count === undefined ? 0 : checkInteger('keepCompleted.count', object.count, 1, 1e9);
  const age =
    object.ageMs === undefined ? 0 : parseDuration('keepCompleted.ageMs', object.ageMs, LIMITS.delayMs);
  return `${count}:${age}`;
}

function atMillis(value: unknown): number {
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0 || ms > 8.64e15) {
    throw new ValidationError(
      `Expected \`at\` to be a valid Date or whole milliseconds since the epoch, got ${describe(value)}`,
    );
  }
  return ms;
}

function timeoutMillis(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDuration('timeout', value, LIMITS.delayMs);
  if (ms === 0)
    throw new ValidationError('Expected `timeout` to be more than 0 ms; leave it out for no limit');
  return ms;
}

/**
 * Checks one job and turns it into what add.lua stores. Throws a ValidationError (or
 * PayloadTooLargeError) on the first problem; nothing is sent to Redis before every job passed.
 * maxAttempts, backoff and timeout are passed on only when the add gives them: otherwise the job
 * type's registered options (defineJob) apply, then the queue's defaults (see addDefaults).
 * With `jsonLater` (addBulk), the JSON of data sure to fit is made when its batch is sent
 * (checkPayload); otherwise now.
 */
export function prepareJob(
  type: unknown,
  data: unknown,
  options: unknown,
  defaults: DefaultJobOptions,
  maxPayloadBytes: number,
): NewJob & { data: string };
export function prepareJob(
  type: unknown,
  data: unknown,
  options: unknown,
  defaults: DefaultJobOptions,
  maxPayloadBytes: number,
  jsonLater: boolean,
): NewJob;
export function prepareJob(
  type: unknown,
  data: unknown,
  options: unknown,
  defaults: DefaultJobOptions,
  maxPayloadBytes: number,
  jsonLater = false,
): NewJob {
  checkString('type', type, LIMITS.typeLength);
  const opts = (options === undefined ? {} : checkPlainObject('options', options)) as JobOptions;
  checkKnownKeys('job options', opts as Record<string, unknown>, JOB_OPTION_NAMES);
  if (opts.delay !== undefined && opts.at !== undefined) {
    throw new ValidationError('Give either `delay` or `at`, not both');
  }
  const priority = opts.priority ?? defaults.priority;
  return {
    id: opts.id === undefined ? newJobId() : checkString('id', opts.id, LIMITS.idLength),
    type: type as string,
    data: jsonLater ? checkPayload(data, maxPayloadBytes) : serializePayload(data, maxPayloadBytes),
    delayMs: opts.delay === undefined ? undefined : parseDuration('delay', opts.delay, LIMITS.delayMs),
    atMs: opts.at === undefined ? undefined : atMillis(opts.at),
    priority: priority === undefined ? 0 : checkInteger('priority', priority, 0, LIMITS.priority),
    maxAttempts:
      opts.maxAttempts === undefined
        ? undefined
        : checkInteger('maxAttempts', opts.maxAttempts, 1, LIMITS.maxAttempts),
    backoff: opts.backoff === undefined ? undefined : encodeBackoff(opts.backoff),
    timeoutMs: timeoutMillis(opts.timeout),
    key: opts.key === undefined ? undefined : checkString('key', opts.key, LIMITS.keyLength),
    keep: encodeKeep(opts.keepCompleted ?? defaults.keepCompleted),
  };
}

/** Checks the Queue's `defaultJobOptions` once, at construction. */
export function checkDefaultJobOptions(value: unknown): DefaultJobOptions {
  if (value === undefined) return {};
  const object = checkPlainObject('defaultJobOptions', value);
  checkKnownKeys('defaultJobOptions', object, DEFAULT_JOB_OPTION_NAMES);
  // A dry run through the same checks as add, so a bad default fails at construction, not at add.
  prepareJob('check', null, object, {}, Number.MAX_SAFE_INTEGER);
  return object as DefaultJobOptions;
}

/** What add.lua falls back to when neither the add nor the job type's options set a value. */
export function addDefaults(defaults: DefaultJobOptions): AddDefaults {
  return {
    maxAttempts: defaults.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    backoff: encodeBackoff(defaults.backoff),
    timeoutMs: timeoutMillis(defaults.timeout),
  };
}
