import { describe, expect, it } from 'vitest';
import { deferred, useQueues } from '../support/harness.js';

describe('smoke', () => {
  const t = useQueues();

  it('runs a job added now', async () => {
    const queue = t.queue();
    const seen = deferred<unknown>();
    t.worker(queue, { hello: async (job) => seen.resolve(job.data) });
    await queue.add('hello', { a: 1 });
    expect(await seen.promise).toEqual({ a: 1 });
  });

  it('runs a delayed job', async () => {
    const queue = t.queue();
    const seen = deferred<number>();
    t.worker(queue, { later: async () => seen.resolve(Date.now()) });
    const start = Date.now();
    await queue.add('later', null, { delay: 300 });
    const ranAt = await seen.promise;
    expect(ranAt - start).toBeGreaterThanOrEqual(290);
  });
});
