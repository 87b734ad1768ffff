import { randomBytes } from 'node:crypto';
import { DEFAULT_PREFIX, LIMITS } from '../defaults.js';
import { LockBusyError, ValidationError } from '../errors.js';
import type { Client } from '../redis/connection.js';
import { runScript } from '../scripts/loader.js';
import { checkKnownKeys, checkPlainObject, checkString } from '../util/checks.js';
import { parseDuration } from '../util/duration.js';
import { sleep } from '../util/sleep.js';

export interface OnceOptions {
  /** How long a finished run's result is remembered (ms or '24h'): within it, the key never runs again. */
  ttlMs: number | string;
  /**
   * How long a runner holds the key while `fn` runs, renewed every third of it: a runner that
   * dies frees the key after this. @default 30s (or ttlMs, if shorter)
   */
  leaseMs?: number | string;
  /** How long a duplicate waits for the running one to finish before giving up. @default the lease */
  waitMs?: number | string;
  /** @default 'dueq' */
  prefix?: string;
}

const NAMES = ['ttlMs', 'leaseMs', 'waitMs', 'prefix'] as const;

interface Checked {
  ttlMs: number;
  leaseMs: number;
  waitMs: number;
}

export function checkOnceOptions(options: unknown): Checked & { prefix: string } {
  const o = checkPlainObject('once options', options);
  checkKnownKeys('once options', o, NAMES);
  const ttlMs = parseDuration('ttlMs', o.ttlMs, LIMITS.delayMs);
  if (ttlMs < 1) throw new ValidationError('Expected `ttlMs` to be more than 0 ms');
  const leaseMs =
    o.leaseMs === undefined ? Math.min(30_000, ttlMs) : parseDuration('leaseMs', o.leaseMs, LIMITS.delayMs);
  if (leaseMs < 100) throw new ValidationError('Expected `leaseMs` to be at least 100 ms');
  const waitMs = o.waitMs === undefined ? leaseMs : parseDuration('waitMs', o.waitMs, LIMITS.delayMs);
  const prefix = o.prefix === undefined ? DEFAULT_PREFIX : checkString('prefix', o.prefix, 50);
  return { ttlMs, leaseMs, waitMs, prefix };
}

/**
 * Runs `fn` at most once per key (the idempotency key of seed 002 §4.1): the first caller runs it
 * and its result is stored; callers that come while it runs wait and get that result; callers
 * within `ttlMs` after get it at once. If `fn` throws, the key is freed, so a retry runs it again
 * (never marked done before the work succeeded). Results are shared as JSON.
 */
export async function once<T>(
  redis: Client,
  key: string,
  fn: () => Promise<T> | T,
  options: OnceOptions,
): Promise<T> {
  const o = checkOnceOptions(options);
  return runOnce(redis, `${o.prefix}:once:${checkString('once key', key, LIMITS.keyLength)}`, fn, o);
}

/** once() on a key already built (a job context builds it inside its queue's hash tag). */
export async function runOnce<T>(
  redis: Client,
  redisKey: string,
  fn: () => Promise<T> | T,
  o: Checked,
): Promise<T> {
  const token = randomBytes(12).toString('base64url');
  const deadline = performance.now() + o.waitMs;
  for (let pause = 10; ; pause = Math.min(pause * 2, 250)) {
    const [state, stored] = await runScript<[string, string?]>(
      redis,
      'onceBegin',
      [redisKey],
      [token, o.leaseMs],
    );
    if (state === 'done') return (stored ? JSON.parse(stored) : undefined) as T;
    if (state === 'run') return run(redis, redisKey, token, fn, o);
    const left = deadline - performance.now();
    if (left <= 0)
      throw new LockBusyError(`once("${redisKey}") is still running elsewhere after ${o.waitMs} ms`);
    await sleep(Math.min(pause, left));
  }
}

async function run<T>(
  redis: Client,
  redisKey: string,
  token: string,
  fn: () => Promise<T> | T,
  o: Checked,
): Promise<T> {
  const renew = setInterval(
    () => void runScript(redis, 'onceExtend', [redisKey], [token, o.leaseMs]).catch(() => {}),
    Math.max(Math.floor(o.leaseMs / 3), 30),
  );
  let result: T;
  try {
    result = await fn();
  } catch (error) {
    clearInterval(renew);
    await runScript(redis, 'onceFinish', [redisKey], [token, 'failed', '', o.ttlMs]).catch(() => {});
    throw error;
  }
  clearInterval(renew);
  let json = '';
  try {
    json = result === undefined ? '' : (JSON.stringify(result) ?? '');
  } catch {
    // The work is done and must stay done; duplicates just get no result.
  }
  await runScript(redis, 'onceFinish', [redisKey], [token, 'done', json, o.ttlMs]);
  return result;
}
