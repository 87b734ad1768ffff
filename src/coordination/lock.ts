import { randomBytes } from 'node:crypto';
import { DEFAULT_PREFIX, LIMITS } from '../defaults.js';
import { LockBusyError, LockLostError, ValidationError } from '../errors.js';
import type { Client } from '../redis/connection.js';
import { runScript } from '../scripts/loader.js';
import { checkKnownKeys, checkPlainObject, checkString } from '../util/checks.js';
import { parseDuration } from '../util/duration.js';
import { sleep } from '../util/sleep.js';

export interface LockOptions {
  /** How long the lock lives unless extended (ms or '30s'). A holder that dies frees it after this. */
  ttlMs: number | string;
  /** How long to keep trying when someone else holds it (ms or '5s'). @default 0: one try */
  waitMs?: number | string;
  /** @default 'dueq' */
  prefix?: string;
}

/**
 * A distributed lock held by one owner token (SET NX PX). Release and extend compare the token
 * first (seed 003 §2.3), so a holder whose TTL ran out cannot free or stretch a lock that someone
 * else holds now.
 */
export class Lock {
  constructor(
    private readonly client: Client,
    readonly name: string,
    readonly key: string,
    readonly token: string,
    readonly ttlMs: number,
  ) {}

  /** Frees the lock if this owner still holds it; returns whether it did. */
  async release(): Promise<boolean> {
    return (await runScript<number>(this.client, 'lockRelease', [this.key], [this.token])) === 1;
  }

  /** Gives the lock `ttlMs` (default: its TTL) from now, if this owner still holds it; returns whether it did. */
  async extend(ttlMs: number | string = this.ttlMs): Promise<boolean> {
    const ms = parseDuration('ttlMs', ttlMs, LIMITS.delayMs);
    return (await runScript<number>(this.client, 'lockExtend', [this.key], [this.token, ms])) === 1;
  }
}

function checkOptions(
  name: unknown,
  options: unknown,
): { name: string; ttlMs: number; waitMs: number; key: string } {
  const checked = checkString('lock name', name, LIMITS.keyLength);
  const o = checkPlainObject('lock options', options);
  checkKnownKeys('lock options', o, ['ttlMs', 'waitMs', 'prefix']);
  const ttlMs = parseDuration('ttlMs', o.ttlMs, LIMITS.delayMs);
  if (ttlMs < 1) throw new ValidationError('Expected `ttlMs` to be more than 0 ms');
  const waitMs = o.waitMs === undefined ? 0 : parseDuration('waitMs', o.waitMs, LIMITS.delayMs);
  const prefix = o.prefix === undefined ? DEFAULT_PREFIX : checkString('prefix', o.prefix, 50);
  return { name: checked, ttlMs, waitMs, key: `${prefix}:lock:${checked}` };
}

/** Takes the lock, waiting up to `waitMs` for it; resolves with the Lock, or null if others held it throughout. */
export async function acquireLock(redis: Client, name: string, options: LockOptions): Promise<Lock | null> {
  const o = checkOptions(name, options);
  const token = randomBytes(12).toString('base64url');
  const deadline = performance.now() + o.waitMs;
  for (let pause = 10; ; pause = Math.min(pause * 2, 200)) {
    if ((await redis.set(o.key, token, 'PX', o.ttlMs, 'NX')) === 'OK')
      return new Lock(redis, o.name, o.key, token, o.ttlMs);
    const left = deadline - performance.now();
    if (left <= 0) return null;
    await sleep(Math.min(pause, left));
  }
}

/**
 * Runs `fn` holding the lock, extending it every third of its TTL while `fn` runs, and frees it
 * after. If the lock is lost meanwhile (an extension came too late, or failed), `signal` fires with
 * a LockLostError: `fn` should stop. Throws LockBusyError when the lock is not got within `waitMs`.
 */
export async function withLock<T>(
  redis: Client,
  name: string,
  options: LockOptions,
  fn: (signal: AbortSignal, lock: Lock) => Promise<T> | T,
): Promise<T> {
  const lock = await acquireLock(redis, name, options);
  if (!lock) throw new LockBusyError(`The lock "${name}" is held by another owner`);
  const controller = new AbortController();
  const timer = setInterval(
    () => {
      lock.extend().then(
        (held) => {
          if (!held) controller.abort(new LockLostError(name));
        },
        () => controller.abort(new LockLostError(name)),
      );
    },
    Math.max(Math.floor(lock.ttlMs / 3), 1),
  );
  try {
    return await fn(controller.signal, lock);
  } finally {
    clearInterval(timer);
    await lock.release().catch(() => false);
  }
}
