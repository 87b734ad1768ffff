import { DEFAULT_BACKOFF, LIMITS } from '../defaults.js';
import { ValidationError } from '../errors.js';
import { checkKnownKeys, checkNumber, checkPlainObject } from '../util/checks.js';
import { describe } from '../util/describe.js';
import { parseDuration } from '../util/duration.js';

/**
 * How long a failed job waits before its next attempt.
 * - an array: a table of delays, the n-th failure waits `table[n-1]` (the last entry repeats);
 * - `{ type: 'fixed', delay }`: the same delay every time;
 * - `{ type: 'exponential', delay, max }`: `delay`, then doubling, never more than `max` (default 1 h).
 * `jitter` (0..1) takes up to that fraction off each delay at random, so that jobs that failed
 * together do not all retry in the same instant.
 */
export type BackoffOption =
  | readonly (number | string)[]
  | { type: 'fixed'; delay: number | string; jitter?: number }
  | { type: 'exponential'; delay: number | string; max?: number | string; jitter?: number };

/**
 * The stored form, read by the Lua scripts that compute retry delays (lib/backoff.lua):
 * `e:<delayMs>:<maxMs>:<jitter>`, `f:<delayMs>:<jitter>` or `t:<ms>,<ms>,…`.
 */
export type BackoffSpec = string;

export const DEFAULT_BACKOFF_SPEC: BackoffSpec = `e:${DEFAULT_BACKOFF.delay}:${DEFAULT_BACKOFF.max}:${DEFAULT_BACKOFF.jitter}`;

export function encodeBackoff(option: unknown): BackoffSpec {
  if (option === undefined) return DEFAULT_BACKOFF_SPEC;
  if (Array.isArray(option)) {
    if (option.length === 0 || option.length > LIMITS.backoffTableLength) {
      throw new ValidationError(
        `Expected \`backoff\` table to hold 1 to ${LIMITS.backoffTableLength} delays, got ${describe(option)}`,
      );
    }
    const delays = option.map((d, i) => parseDuration(`backoff[${i}]`, d, LIMITS.delayMs));
    return `t:${delays.join(',')}`;
  }
  const object = checkPlainObject('backoff', option);
  const jitter = object.jitter === undefined ? 0 : checkNumber('backoff.jitter', object.jitter, 0, 1);
  const delay = parseDuration('backoff.delay', object.delay, LIMITS.delayMs);
  if (object.type === 'fixed') {
    checkKnownKeys('backoff', object, ['type', 'delay', 'jitter']);
    return `f:${delay}:${jitter}`;
  }
  if (object.type === 'exponential') {
    checkKnownKeys('backoff', object, ['type', 'delay', 'max', 'jitter']);
    const max =
      object.max === undefined
        ? DEFAULT_BACKOFF.max
        : parseDuration('backoff.max', object.max, LIMITS.delayMs);
    if (max < delay) {
      throw new ValidationError(
        `Expected \`backoff.max\` (${max} ms) to be at least \`backoff.delay\` (${delay} ms)`,
      );
    }
    return `e:${delay}:${max}:${jitter}`;
  }
  throw new ValidationError(
    `Expected \`backoff.type\` to be 'fixed' or 'exponential', got ${describe(object.type)}`,
  );
}

/** The inverse of encodeBackoff, for JobInfo. An unreadable spec reads as the default. */
export function decodeBackoff(spec: string | undefined): BackoffOption {
  const parts = (spec ?? DEFAULT_BACKOFF_SPEC).split(':');
  const num = (s: string | undefined) => Number(s ?? 0);
  if (parts[0] === 't' && parts[1]) return parts[1].split(',').map(Number);
  if (parts[0] === 'f') return { type: 'fixed', delay: num(parts[1]), jitter: num(parts[2]) };
  if (parts[0] === 'e')
    return { type: 'exponential', delay: num(parts[1]), max: num(parts[2]), jitter: num(parts[3]) };
  return { ...DEFAULT_BACKOFF };
}
