import { describe, expect, it, vi } from 'vitest';
import { useQueues } from '../support/harness.js';

/** The promises of DESIGN §3, checked the way a user would. */
describe('guarantees', () => {
  const t = useQueues();

  it.each([
    ['ahead', 120_000],
    ['behind', -120_000],
  ])('a producer whose clock is 2 minutes %s does not move when the job runs', async (_label, skewMs) => {
    const queue = t.queue();
    let ranAfterMs = 0;
    let addedAt = 0;
    const worker = t.worker(queue, {
      x: async () => {
        ranAfterMs = performance.now() - addedAt;
      },
    });
    await worker.waitUntilReady();
    const realNow = Date.now;
    const spy = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + skewMs);
    try {
      addedAt = performance.now();
      const id = await queue.add('x', null, { delay: 500 });
      const job = await queue.getJob(id);
      expect((job?.dueAt ?? 0) - (job?.createdAt ?? 0)).toBe(500);
      expect(Math.abs((job?.createdAt ?? 0) - realNow())).toBeLessThan(1_000);
      await expect.poll(() => ranAfterMs, { timeout: 5_000 }).toBeGreaterThan(0);
    } finally {
      spy.mockRestore();
    }
    expect(ranAfterMs).toBeGreaterThanOrEqual(480);
    expect(ranAfterMs).toBeLessThan(1_000);
  });

  it('runs 10,000 jobs due in the same millisecond once each, none early', async () => {
    const queue = t.queue();
    const [seconds] = await queue.client.time();
    const dueAt = Number(seconds) * 1000 + 2_000;
    const jobs = Array.from({ length: 10_000 }, (_, i) => ({ type: 'tick', data: i, opts: { at: dueAt } }));
    await queue.addBulk(jobs);
    const runs = new Uint8Array(10_000);
    let early = 0;
    let total = 0;
    const handler = async (job: { data: unknown; dueAt: number }) => {
      if (Date.now() < job.dueAt - 5) early++;
      runs[job.data as number] = (runs[job.data as number] ?? 0) + 1;
      total++;
    };
    t.worker(queue, { tick: handler }, { concurrency: 64 });
    t.worker(queue, { tick: handler }, { concurrency: 64 });
    await t.scheduler(queue).start();
    await expect.poll(() => total, { timeout: 20_000, interval: 100 }).toBe(10_000);
    expect(runs.every((n) => n === 1)).toBe(true);
    expect(early).toBe(0);
    // The last completions are acknowledged in batches just after their handlers return.
    await expect
      .poll(() => queue.counts())
      .toMatchObject({ done: 10_000, delayed: 0, ready: 0, active: 0, dead: 0 });
  });

  it('sends a job that always throws to dead after maxAttempts, with its message and a bounded stack', async () => {
    const queue = t.queue();
    t.worker(queue, {
      broken: async (job) => {
        const error = new Error(`attempt ${job.attempt}: ${'m'.repeat(5_000)}`);
        error.stack = `Error: ${'s'.repeat(50_000)}`;
        throw error;
      },
    });
    const id = await queue.add('broken', null, { maxAttempts: 3, backoff: { type: 'fixed', delay: 10 } });
    await expect.poll(async () => (await queue.getJob(id))?.state, { timeout: 5_000 }).toBe('dead');
    const job = await queue.getJob(id);
    expect(job?.attempt).toBe(3);
    expect(job?.errors).toHaveLength(3);
    for (const [i, error] of (job?.errors ?? []).entries()) {
      expect(error.attempt).toBe(i + 1);
      expect(error.message.startsWith(`attempt ${i + 1}: mmm`)).toBe(true);
      expect(error.message.length).toBeLessThan(1_100);
      expect(error.stack.startsWith('Error: sss')).toBe(true);
      expect(error.stack.length).toBeLessThan(2_100);
      expect(error.stack).toMatch(/… \(\d+ more characters cut\)$/);
    }
    expect(await queue.counts()).toMatchObject({ dead: 1, done: 0 });
  });
});
