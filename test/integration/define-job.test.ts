import { describe, expect, it } from 'vitest';
import { defineJob, ValidationError, Worker } from '../../src/index.js';
import { useQueues } from '../support/harness.js';

describe('defineJob', () => {
  const t = useQueues();

  it('runs the definition and applies its options to jobs added without their own', async () => {
    const queue = t.queue({ defaultJobOptions: { maxAttempts: 9 } });
    const charge = defineJob<{ amount: number }>({
      type: 'payment.charge',
      maxAttempts: 5,
      backoff: { type: 'fixed', delay: '2s' },
      timeout: '10s',
      handle: async (job) => job.data.amount * 2,
    });
    const worker = t.worker(queue, [charge]);
    await worker.waitUntilReady();
    await queue.pause();
    const plain = await queue.getJob(await queue.add('payment.charge', { amount: 1 }));
    expect(plain).toMatchObject({
      maxAttempts: 5,
      backoff: { type: 'fixed', delay: 2000, jitter: 0 },
      timeoutMs: 10_000,
    });
    // The add's own options win; a type without a definition gets the queue's defaults.
    const own = await queue.getJob(
      await queue.add('payment.charge', { amount: 1 }, { maxAttempts: 2, timeout: 500 }),
    );
    expect(own).toMatchObject({ maxAttempts: 2, timeoutMs: 500, backoff: { type: 'fixed', delay: 2000 } });
    const other = await queue.getJob(await queue.add('other.type', null));
    expect(other).toMatchObject({ maxAttempts: 9, backoff: { type: 'exponential', delay: 1000 } });
    expect(other?.timeoutMs).toBeUndefined();
    await queue.cancel(other?.id as string);
    await queue.resume();
    const results: unknown[] = [];
    worker.on('completed', (_job, result) => results.push(result));
    await expect.poll(() => results.length).toBe(2);
    expect(results).toEqual([2, 2]);
  });

  it('accepts definitions by name alongside plain handlers', async () => {
    const queue = t.queue();
    const ran: string[] = [];
    t.worker(queue, {
      'a.b': defineJob({ type: 'a.b', handle: async () => void ran.push('definition') }),
      plain: async () => void ran.push('function'),
    });
    await queue.add('a.b');
    await queue.add('plain');
    await expect.poll(() => ran.sort()).toEqual(['definition', 'function']);
  });

  it('refuses bad definitions with a clear error', () => {
    const handle = async () => {};
    expect(() => defineJob({ type: '', handle })).toThrow(/`type` to be a non-empty string/);
    expect(() => defineJob({ type: 'x', handle: 'nope' as never })).toThrow(
      /`handle` of job type "x" to be a function/,
    );
    expect(() => defineJob({ type: 'x', handle, maxAttempts: 0 })).toThrow(/`maxAttempts`/);
    expect(() => defineJob({ type: 'x', handle, backoff: { type: 'never', delay: 1 } as never })).toThrow(
      /`backoff.type`/,
    );
    expect(() => defineJob({ type: 'x', handle, timeout: 0 })).toThrow(/`timeout` to be more than 0/);
    expect(() => defineJob({ type: 'x', handle, retries: 3 } as never)).toThrow(/Unknown option `retries`/);
    const queue = t.queue();
    const def = defineJob({ type: 'x', handle });
    expect(() => new Worker(queue, { y: def })).toThrow(ValidationError);
    expect(() => new Worker(queue, { y: def })).toThrow(
      'Handler "y" is the definition of job type "x"; use the same name',
    );
    expect(() => new Worker(queue, [def, def])).toThrow('Job type "x" is defined twice');
    expect(() => new Worker(queue, [handle] as never)).toThrow(/handlers\[0\] to be a defineJob definition/);
  });
});
