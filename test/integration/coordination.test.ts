import { afterAll, describe, expect, it } from 'vitest';
import {
  acquireLock,
  LockBusyError,
  LockLostError,
  once,
  ValidationError,
  withLock,
} from '../../src/index.js';
import type { Client } from '../../src/redis/connection.js';
import { clientFromUrl } from '../../src/redis/url.js';
import { redisUrl, uniqueName, useQueues } from '../support/harness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const clients: Client[] = [];
/** A connection of its own (to one server or the test cluster, as the run is set up). */
function client(): Client {
  const c = clientFromUrl(redisUrl());
  clients.push(c);
  return c;
}
afterAll(() => {
  for (const c of clients) c.disconnect();
});

describe('locks', () => {
  it('20 concurrent contenders, each on its own connection: never two holders', async () => {
    const name = uniqueName('lock');
    let holders = 0;
    let peak = 0;
    let acquisitions = 0;
    const contender = async (redis: Client) => {
      for (let round = 0; round < 5; round++) {
        const lock = await acquireLock(redis, name, { ttlMs: 2_000, waitMs: 10_000 });
        expect(lock).not.toBeNull();
        acquisitions++;
        peak = Math.max(peak, ++holders);
        await sleep(2);
        holders--;
        expect(await lock?.release()).toBe(true);
      }
    };
    await Promise.all(Array.from({ length: 20 }, () => contender(client())));
    expect(peak).toBe(1);
    expect(acquisitions).toBe(100);
  });

  it('is not acquired while held; only its owner can release or extend it', async () => {
    const name = uniqueName('lock');
    const a = await acquireLock(client(), name, { ttlMs: 300 });
    expect(a).not.toBeNull();
    expect(await acquireLock(client(), name, { ttlMs: 300 })).toBeNull();
    // A's TTL runs out; B takes the lock. A can neither release nor extend what B holds now.
    await sleep(400);
    const b = await acquireLock(client(), name, { ttlMs: 5_000 });
    expect(b).not.toBeNull();
    expect(await a?.release()).toBe(false);
    expect(await a?.extend()).toBe(false);
    expect(await client().get(`dueq:lock:${name}`)).toBe(b?.token);
    expect(await b?.extend(10_000)).toBe(true);
    expect(await client().pttl(`dueq:lock:${name}`)).toBeGreaterThan(9_000);
    expect(await b?.release()).toBe(true);
    expect(await acquireLock(client(), name, { ttlMs: 300 })).not.toBeNull();
  });

  it('waits for a lock up to waitMs', async () => {
    const name = uniqueName('lock');
    const a = await acquireLock(client(), name, { ttlMs: 5_000 });
    setTimeout(() => void a?.release(), 150);
    const started = Date.now();
    const b = await acquireLock(client(), name, { ttlMs: 5_000, waitMs: '2s' });
    expect(b).not.toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('withLock extends the lock while fn runs, and frees it after', async () => {
    const name = uniqueName('lock');
    const redis = client();
    const result = await withLock(redis, name, { ttlMs: 300 }, async (signal) => {
      await sleep(1_000);
      expect(signal.aborted).toBe(false);
      expect(await acquireLock(client(), name, { ttlMs: 100 })).toBeNull();
      return 42;
    });
    expect(result).toBe(42);
    expect(await redis.exists(`dueq:lock:${name}`)).toBe(0);
  });

  it('withLock fires the signal when the lock is lost, and refuses a held lock', async () => {
    const name = uniqueName('lock');
    const redis = client();
    const reason = await withLock(redis, name, { ttlMs: 300 }, async (signal) => {
      await redis.del(`dueq:lock:${name}`);
      await client().set(`dueq:lock:${name}`, 'someone-else');
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
      return signal.reason;
    });
    expect(reason).toBeInstanceOf(LockLostError);
    // Its owner's release did not free the lock someone else holds.
    expect(await redis.get(`dueq:lock:${name}`)).toBe('someone-else');
    await expect(withLock(redis, name, { ttlMs: 300 }, async () => 1)).rejects.toThrow(LockBusyError);
  });

  it('refuses bad options', async () => {
    await expect(acquireLock(client(), '', { ttlMs: 100 })).rejects.toThrow(ValidationError);
    await expect(acquireLock(client(), 'x', { ttlMs: 0 })).rejects.toThrow(/`ttlMs` to be more than 0/);
    await expect(acquireLock(client(), 'x', { ttlMs: 'forever' })).rejects.toThrow(/`ttlMs`/);
    await expect(acquireLock(client(), 'x', { ttl: 5 } as never)).rejects.toThrow(/Unknown option `ttl`/);
  });
});

describe('once', () => {
  const t = useQueues();

  it('runs fn once under concurrent duplicate deliveries, and every caller gets its result', async () => {
    const key = uniqueName('charge');
    let runs = 0;
    const charge = async () => {
      runs++;
      await sleep(200);
      return { chargeId: 'ch_1', amount: 1000 };
    };
    const results = await Promise.all(
      Array.from({ length: 10 }, () => once(client(), key, charge, { ttlMs: '1h' })),
    );
    expect(runs).toBe(1);
    expect(results).toEqual(Array(10).fill({ chargeId: 'ch_1', amount: 1000 }));
    // Later callers get the stored result at once.
    expect(await once(client(), key, charge, { ttlMs: '1h' })).toEqual({ chargeId: 'ch_1', amount: 1000 });
    expect(runs).toBe(1);
  });

  it('frees the key when fn fails, so a retry runs it', async () => {
    const key = uniqueName('charge');
    let runs = 0;
    const flaky = async () => {
      if (++runs === 1) throw new Error('bank timed out');
      return 'charged';
    };
    await expect(once(client(), key, flaky, { ttlMs: '1h' })).rejects.toThrow('bank timed out');
    expect(await once(client(), key, flaky, { ttlMs: '1h' })).toBe('charged');
    expect(await once(client(), key, flaky, { ttlMs: '1h' })).toBe('charged');
    expect(runs).toBe(2);
  });

  it('runs again after the result expires', async () => {
    const key = uniqueName('k');
    let runs = 0;
    await once(client(), key, async () => ++runs, { ttlMs: 200 });
    await sleep(300);
    expect(await once(client(), key, async () => ++runs, { ttlMs: 200 })).toBe(2);
  });

  it('is reachable from a job: a job delivered twice charges once', async () => {
    const queue = t.queue();
    let charges = 0;
    const results: unknown[] = [];
    const worker = t.worker(
      queue,
      {
        pay: async (job) => {
          const receipt = await job.once(`charge:${(job.data as { order: number }).order}`, async () => {
            charges++;
            await sleep(100);
            return `receipt-${charges}`;
          });
          results.push(receipt);
        },
      },
      { concurrency: 4 },
    );
    await worker.waitUntilReady();
    await queue.addBulk([
      { type: 'pay', data: { order: 7 } },
      { type: 'pay', data: { order: 7 } },
      { type: 'pay', data: { order: 7 } },
    ]);
    await expect.poll(() => results.length).toBe(3);
    expect(charges).toBe(1);
    expect(results).toEqual(['receipt-1', 'receipt-1', 'receipt-1']);
  });

  it('refuses bad options', async () => {
    await expect(once(client(), 'k', async () => 1, { ttlMs: 0 })).rejects.toThrow(
      /`ttlMs` to be more than 0/,
    );
    await expect(once(client(), '', async () => 1, { ttlMs: 100 })).rejects.toThrow(/once key/);
    await expect(once(client(), 'k', async () => 1, {} as never)).rejects.toThrow(/`ttlMs`/);
  });
});
