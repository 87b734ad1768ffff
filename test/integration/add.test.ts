import { describe, expect, it } from 'vitest';
import { ClosedError, PayloadTooLargeError, Queue, ValidationError } from '../../src/index.js';
import { keysOf, redisUrl, useQueues } from '../support/harness.js';

describe('Queue.add', () => {
  const t = useQueues();

  it('stores a job due now as ready and returns its id', async () => {
    const queue = t.queue();
    const id = await queue.add('order.close', { orderId: 1001 });
    expect(id).toMatch(/^[A-Za-z0-9_-]{16}$/);
    const job = await queue.getJob(id);
    expect(job).toMatchObject({
      id,
      type: 'order.close',
      data: { orderId: 1001 },
      state: 'ready',
      attempt: 0,
      maxAttempts: 3,
      priority: 0,
      errors: [],
      backoff: { type: 'exponential', delay: 1000, max: 3_600_000, jitter: 0 },
    });
    expect(job?.dueAt).toBe(job?.createdAt);
    expect(await queue.counts()).toEqual({
      delayed: 0,
      ready: 1,
      active: 0,
      dead: 0,
      done: 0,
      paused: false,
    });
  });

  it('counts delay from Redis time and accepts duration strings', async () => {
    const queue = t.queue();
    const a = await queue.getJob(await queue.add('x', null, { delay: '30m' }));
    const b = await queue.getJob(await queue.add('x', null, { delay: 1500 }));
    expect(a?.state).toBe('delayed');
    expect(a && a.dueAt - a.createdAt).toBe(30 * 60_000);
    expect(b && b.dueAt - b.createdAt).toBe(1500);
    expect((await queue.counts()).delayed).toBe(2);
  });

  it('takes `at` as the due instant, and an instant in the past as due now', async () => {
    const queue = t.queue();
    const at = new Date(Date.now() + 3_600_000);
    const future = await queue.getJob(await queue.add('x', null, { at }));
    expect(future).toMatchObject({ state: 'delayed', dueAt: at.getTime() });
    const past = await queue.getJob(await queue.add('x', null, { at: 1_000 }));
    expect(past).toMatchObject({ state: 'ready', dueAt: 1_000 });
  });

  it('returns the existing job for an id that exists, adding nothing', async () => {
    const queue = t.queue();
    expect(await queue.add('x', { v: 1 }, { id: 'order-1001' })).toBe('order-1001');
    expect(await queue.add('x', { v: 2 }, { id: 'order-1001', delay: 5000 })).toBe('order-1001');
    expect((await queue.getJob('order-1001'))?.data).toEqual({ v: 1 });
    expect(await queue.counts()).toMatchObject({ ready: 1, delayed: 0 });
  });

  it('dedups by key while the holder waits, and frees the key when it is cancelled', async () => {
    const queue = t.queue();
    const first = await queue.add('pay.check', { n: 1 }, { key: 'order:7', delay: 60_000 });
    expect(await queue.add('pay.check', { n: 2 }, { key: 'order:7' })).toBe(first);
    expect(await queue.counts()).toMatchObject({ delayed: 1, ready: 0 });
    expect(await queue.cancel(first)).toBe('removed');
    const second = await queue.add('pay.check', { n: 3 }, { key: 'order:7' });
    expect(second).not.toBe(first);
    expect((await queue.getJob(second))?.data).toEqual({ n: 3 });
  });

  it('dedups within one addBulk call', async () => {
    const queue = t.queue();
    const ids = await queue.addBulk([
      { type: 'x', data: 1, opts: { key: 'k' } },
      { type: 'x', data: 2, opts: { key: 'k' } },
      { type: 'x', data: 3 },
    ]);
    expect(ids[1]).toBe(ids[0]);
    expect(ids[2]).not.toBe(ids[0]);
    expect((await queue.counts()).ready).toBe(2);
  });

  it('adds in bulk, in order, across chunks', async () => {
    const queue = t.queue();
    const jobs = Array.from({ length: 600 }, (_, i) => ({
      type: 'n',
      data: { i },
      opts: i % 2 ? { delay: 60_000 } : {},
    }));
    const ids = await queue.addBulk(jobs);
    expect(ids).toHaveLength(600);
    expect(new Set(ids).size).toBe(600);
    expect((await queue.getJob(ids[599] as string))?.data).toEqual({ i: 599 });
    expect(await queue.counts()).toMatchObject({ ready: 300, delayed: 300 });
  });

  it("stores each job's data as it was when addBulk was called, whatever changes it after", async () => {
    const queue = t.queue();
    const data = { step: 'before' };
    const adding = queue.addBulk(Array.from({ length: 300 }, () => ({ type: 'x', data })));
    data.step = 'after';
    const ids = await adding;
    expect((await queue.getJob(ids[299] as string))?.data).toEqual({ step: 'before' });
  });

  it('waitUntilReady resolves once Redis answers, and refuses after close', async () => {
    const queue = new Queue(t.queue().name, { connection: redisUrl() });
    await expect(queue.waitUntilReady()).resolves.toBeUndefined();
    await queue.close();
    await expect(queue.waitUntilReady()).rejects.toThrow(ClosedError);
  });

  it('applies defaultJobOptions unless the add overrides them', async () => {
    const queue = t.queue({ defaultJobOptions: { maxAttempts: 7, priority: 2 } });
    const a = await queue.getJob(await queue.add('x'));
    const b = await queue.getJob(await queue.add('x', null, { maxAttempts: 1 }));
    expect(a).toMatchObject({ maxAttempts: 7, priority: 2 });
    expect(b).toMatchObject({ maxAttempts: 1, priority: 2 });
  });

  describe('refuses bad input with one clear line, storing nothing', () => {
    const circular: Record<string, unknown> = {};
    circular.me = circular;
    it.each([
      ['an empty type', '', null, undefined, /`type` to be a non-empty string/],
      ['a non-string type', 42, null, undefined, /`type` to be a non-empty string/],
      ['a bad duration string', 'x', null, { delay: 'soonish' }, /`delay` to be a duration like/],
      ['a negative delay', 'x', null, { delay: -5 }, /`delay`/],
      ['a fractional delay', 'x', null, { delay: 1.5 }, /`delay`/],
      ['both delay and at', 'x', null, { delay: 5, at: Date.now() }, /either `delay` or `at`/],
      ['an invalid Date', 'x', null, { at: new Date('nope') }, /`at` to be a valid Date/],
      ['negative maxAttempts', 'x', null, { maxAttempts: -1 }, /`maxAttempts` to be an integer from 1/],
      ['zero maxAttempts', 'x', null, { maxAttempts: 0 }, /`maxAttempts`/],
      ['fractional maxAttempts', 'x', null, { maxAttempts: 2.5 }, /`maxAttempts`/],
      ['a negative priority', 'x', null, { priority: -1 }, /`priority` to be an integer from 0 to 1000000/],
      ['a fractional priority', 'x', null, { priority: 0.5 }, /`priority`/],
      ['a zero timeout', 'x', null, { timeout: 0 }, /`timeout` to be more than 0/],
      ['a bad timeout string', 'x', null, { timeout: 'forever' }, /`timeout`/],
      ['a bad backoff', 'x', null, { backoff: { type: 'sometimes', delay: 1 } }, /`backoff.type`/],
      ['an empty id', 'x', null, { id: '' }, /`id` to be a non-empty string/],
      ['an id with a newline', 'x', null, { id: 'a\nb' }, /`id` to contain no control characters/],
      ['an empty key', 'x', null, { key: '' }, /`key`/],
      ['an unknown option', 'x', null, { delayMs: 5 }, /Unknown option `delayMs`/],
      ['data with a function', 'x', { f() {} }, undefined, /\$\.f is a function/],
      ['data with a BigInt', 'x', { n: 1n }, undefined, /\$\.n is a bigint/],
      ['circular data', 'x', circular, undefined, /circular reference/],
      ['a Map as data', 'x', new Map([[1, 2]]), undefined, /Map object/],
    ])('%s', async (_label, type, data, opts, message) => {
      const queue = t.queue();
      const attempt = queue.add(type as string, data, opts as never);
      await expect(attempt).rejects.toThrow(ValidationError);
      await expect(queue.add(type as string, data, opts as never)).rejects.toThrow(message);
      const error = await queue.add(type as string, data, opts as never).catch((e: Error) => e);
      expect((error as Error).message.split('\n')).toHaveLength(1);
      expect(await keysOf(queue)).toEqual([]);
    });

    it('a payload over the default 512 KiB', async () => {
      const queue = t.queue();
      await expect(queue.add('x', 'a'.repeat(512 * 1024))).rejects.toThrow(PayloadTooLargeError);
      expect(await keysOf(queue)).toEqual([]);
      await expect(queue.add('x', 'a'.repeat(512 * 1024 - 2))).resolves.toBeTypeOf('string');
    });

    it('a payload over a configured limit', async () => {
      const queue = t.queue({ maxPayloadBytes: 100 });
      await expect(queue.add('x', { text: 'b'.repeat(100) })).rejects.toThrow(/over the limit of 100 bytes/);
      expect(await keysOf(queue)).toEqual([]);
    });

    it('a bulk add with one bad job stores none of them', async () => {
      const queue = t.queue();
      const jobs = [
        { type: 'ok', data: 1 },
        { type: 'ok', data: 2, opts: { delay: 'never' } },
        { type: 'ok', data: 3 },
      ];
      await expect(queue.addBulk(jobs)).rejects.toThrow(/^jobs\[1\]: Expected `delay`/);
      expect(await keysOf(queue)).toEqual([]);
    });

    it('a bulk add whose last job is too large stores none, though earlier batches were ready to go', async () => {
      const queue = t.queue({ maxPayloadBytes: 1000 });
      const jobs = Array.from({ length: 600 }, (_, i) => ({ type: 'ok', data: { i } as unknown }));
      jobs.push({ type: 'ok', data: { text: 'é'.repeat(600) } });
      await expect(queue.addBulk(jobs)).rejects.toThrow(/^jobs\[600\]: .*over the limit of 1000 bytes/);
      expect(await keysOf(queue)).toEqual([]);
    });

    it('bad Queue options, at construction', () => {
      expect(() => t.queue({ maxPayloadBytes: 0 })).toThrow(/`maxPayloadBytes`/);
      expect(() => t.queue({ defaultJobOptions: { maxAttempts: 0 } })).toThrow(/`maxAttempts`/);
      expect(() => t.queue({ prefix: 'has space' })).toThrow(/`prefix`/);
      expect(() => t.queue({ colour: 'red' } as never)).toThrow(/Unknown option `colour`/);
    });
  });
});

describe('Queue.add, many at once', () => {
  const t = useQueues();

  it('sends the adds made in the same turn together, in order', async () => {
    const queue = t.queue();
    const ids = await Promise.all(Array.from({ length: 100 }, (_, i) => queue.add('mail', { i })));
    // One 'added' entry per script call (newest first): a hundred adds took a handful of calls.
    const added = (await queue.recentEvents()).filter((e) => e.event === 'added').reverse();
    expect(added.length).toBeLessThanOrEqual(4);
    expect(added.flatMap((e) => e.jobs.map((j) => j.id))).toEqual(ids);
    const jobs = await Promise.all(ids.map((id) => queue.getJob(id)));
    expect(jobs.map((j) => j?.data)).toEqual(ids.map((_, i) => ({ i })));
  });

  it('treats two adds of one turn with the same dedup key as one after the other', async () => {
    const queue = t.queue();
    const [first, second] = await Promise.all([
      queue.add('pay.check', { n: 1 }, { key: 'order:9' }),
      queue.add('pay.check', { n: 2 }, { key: 'order:9' }),
    ]);
    expect(second).toBe(first);
    expect((await queue.getJob(first))?.data).toEqual({ n: 1 });
    expect((await queue.counts()).ready).toBe(1);
  });

  it('refuses a bad add without holding back the good ones of the same turn', async () => {
    const queue = t.queue();
    const results = await Promise.allSettled([
      queue.add('a', 1),
      queue.add('b', 2, { delay: -5 }),
      queue.add('c', 3),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(ValidationError);
    expect((await queue.counts()).ready).toBe(2);
  });

  it('stores the adds still waiting to be sent when the queue closes', async () => {
    const reader = t.queue();
    const queue = new Queue(reader.name, { connection: redisUrl() });
    const pending = [queue.add('late', 1), queue.add('late', 2)];
    await queue.close();
    const ids = await Promise.all(pending);
    expect(await Promise.all(ids.map(async (id) => (await reader.getJob(id))?.state))).toEqual([
      'ready',
      'ready',
    ]);
  });
});
