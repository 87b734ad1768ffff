import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../src/index.js';
import { Store } from '../../src/redis/store.js';
import { deferred, useQueues } from '../support/harness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Scheduler', () => {
  const t = useQueues();

  it('promotes due jobs to ready with no worker running', async () => {
    const queue = t.queue();
    await queue.addBulk(Array.from({ length: 20 }, (_, i) => ({ type: 'x', opts: { delay: 100 + i * 10 } })));
    const scheduler = t.scheduler(queue);
    await scheduler.start();
    expect((await queue.counts()).delayed).toBe(20);
    await expect.poll(() => queue.counts(), { timeout: 3_000 }).toMatchObject({ delayed: 0, ready: 20 });
  });

  it('reclaims the job of a worker that died: back to delayed with its backoff, the attempt counted', async () => {
    const queue = t.queue();
    const store = new Store(queue.client, queue.keys);
    const id = await queue.add('x', null, { backoff: { type: 'fixed', delay: 300 } });
    // A worker claims the job with a 200 ms lease, then dies without a word.
    const claim = await store.claim(1, 200, 'dead-worker:1');
    expect(claim.jobs.map((j) => j.id)).toEqual([id]);
    const reclaimed = deferred<{ reclaimed: number; dead: number }>();
    const scheduler = t.scheduler(queue, { reclaimIntervalMs: 50 });
    scheduler.on('reclaimed', (r) => reclaimed.resolve(r));
    await scheduler.start();
    expect(await reclaimed.promise).toEqual({ reclaimed: 1, dead: 0 });
    const job = await queue.getJob(id);
    expect(job).toMatchObject({ state: 'delayed', attempt: 1 });
    expect(job?.errors[0]?.message).toBe(
      'Lease expired: the worker died, stalled or lost Redis while running attempt 1',
    );
    expect((job?.dueAt ?? 0) - (job?.errors[0]?.at ?? 0)).toBe(300);

    const attempt = deferred<number>();
    t.worker(queue, { x: async (j) => attempt.resolve(j.attempt) });
    expect(await attempt.promise).toBe(2);
  });

  it('sends a job that keeps killing its worker to dead instead of a crash loop', async () => {
    const queue = t.queue();
    const store = new Store(queue.client, queue.keys);
    const id = await queue.add('poison', null, { maxAttempts: 3, backoff: { type: 'fixed', delay: 10 } });
    const scheduler = t.scheduler(queue, { reclaimIntervalMs: 20, promoteIntervalMs: 20 });
    await scheduler.start();
    let claims = 0;
    for (let seq = 1; seq <= 10 && (await queue.getJob(id))?.state !== 'dead'; seq++) {
      const { jobs } = await store.claim(1, 100, `doomed:${seq}`);
      claims += jobs.length;
      await sleep(150);
    }
    const job = await queue.getJob(id);
    expect(job?.state).toBe('dead');
    expect(claims).toBe(3);
    expect(job?.errors.map((e) => e.attempt)).toEqual([1, 2, 3]);
  });

  it('stops promoting when ready is full, says so, and resumes as it drains', async () => {
    const queue = t.queue();
    const scheduler = t.scheduler(queue, { maxReady: 10, promoteIntervalMs: 50 });
    const events: string[] = [];
    scheduler.on('backpressure', ({ ready }) => events.push(`backpressure at ${ready}`));
    scheduler.on('backpressureEnded', () => events.push('ended'));
    await queue.addBulk(Array.from({ length: 30 }, () => ({ type: 'x', opts: { delay: 50 } })));
    await scheduler.start();
    await expect.poll(() => events).toEqual(['backpressure at 10']);
    expect(scheduler.backpressure).toBe(true);
    expect(await queue.counts()).toMatchObject({ ready: 10, delayed: 20 });
    let ran = 0;
    t.worker(queue, { x: async () => void ran++ });
    await expect.poll(() => ran, { timeout: 5_000 }).toBe(30);
    await expect.poll(() => events).toEqual(['backpressure at 10', 'ended']);
  });

  it('deletes kept completed jobs past their age', async () => {
    const queue = t.queue({ defaultJobOptions: { keepCompleted: { ageMs: 300 } } });
    t.worker(queue, { x: async () => 'r' });
    const id = await queue.add('x');
    await expect.poll(async () => (await queue.getJob(id))?.state).toBe('done');
    const scheduler = t.scheduler(queue, { retentionIntervalMs: 50 });
    await scheduler.start();
    await sleep(100);
    expect((await queue.getJob(id))?.state).toBe('done');
    await expect.poll(() => queue.getJob(id), { timeout: 3_000 }).toBeNull();
    expect((await queue.counts()).done).toBe(1);
  });

  it('runs safely many at once: every job once', async () => {
    const queue = t.queue();
    const runs = new Map<number, number>();
    for (let i = 0; i < 3; i++)
      await t.scheduler(queue, { promoteIntervalMs: 20, reclaimIntervalMs: 20 }).start();
    t.worker(
      queue,
      { x: async (job) => void runs.set(job.data as number, (runs.get(job.data as number) ?? 0) + 1) },
      { concurrency: 32 },
    );
    await queue.addBulk(
      Array.from({ length: 1_000 }, (_, i) => ({ type: 'x', data: i, opts: { delay: 50 + (i % 250) } })),
    );
    await expect.poll(() => runs.size, { timeout: 10_000 }).toBe(1_000);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
    expect((await queue.counts()).done).toBe(1_000);
  });

  it('refuses bad options', () => {
    const queue = t.queue();
    expect(() => new Scheduler(queue, { maxReady: 0 })).toThrow(/`maxReady`/);
    expect(() => new Scheduler(queue, { reclaimIntervalMs: 1 })).toThrow(
      /`reclaimIntervalMs` to be an integer from 10/,
    );
    expect(() => new Scheduler(queue, { every: 5 } as never)).toThrow(/Unknown option `every`/);
  });
});
