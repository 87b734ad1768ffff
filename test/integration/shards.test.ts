import { describe, expect, it } from 'vitest';
import { Queue, Scheduler, ValidationError, Worker } from '../../src/index.js';
import { redisUrl, uniqueName } from '../support/harness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A sharded queue: N plain queues behind one Queue; one Worker and one Scheduler serve them all. */
describe('sharded queue', () => {
  it('spreads jobs over its shards, and one worker with one scheduler runs them all once', async () => {
    const queue = new Queue(uniqueName('sh'), { connection: redisUrl(), shards: 4 });
    const runs = new Map<number, number>();
    const worker = new Worker(queue, {
      n: async (job) => {
        const { n } = job.data as { n: number };
        runs.set(n, (runs.get(n) ?? 0) + 1);
      },
    });
    const scheduler = new Scheduler(queue);
    try {
      await scheduler.start();
      await queue.addBulk(Array.from({ length: 400 }, (_, n) => ({ type: 'n', data: { n } })));
      for (let n = 400; n < 500; n++) await queue.add('n', { n }, { delay: 50 + (n % 100) });
      await expect.poll(() => runs.size, { timeout: 10_000 }).toBe(500);
      // Completions are acknowledged in batches just after their handlers return.
      await expect.poll(async () => (await queue.totals()).completed).toBe(500);
      await sleep(100);
      expect([...runs.values()].every((count) => count === 1)).toBe(true);
      // Every shard got a share of them.
      const perShard = await Promise.all(queue.shards.map(async (s) => (await s.totals()).completed));
      expect(perShard.every((count) => count > 50)).toBe(true);
      expect(perShard.reduce((a, b) => a + b, 0)).toBe(500);
      expect(await queue.totals()).toMatchObject({ added: 500, completed: 500 });
      expect(await queue.counts()).toEqual({
        delayed: 0,
        ready: 0,
        active: 0,
        dead: 0,
        done: 500,
        paused: false,
      });
      expect(await queue.doctor()).toMatchObject({ ok: true, problems: [] });
    } finally {
      await worker.close();
      await scheduler.close();
      await queue.close();
    }
  });

  it('finds a job by id and keeps a dedup key to one job, whatever shard holds it', async () => {
    const queue = new Queue(uniqueName('sh'), { connection: redisUrl(), shards: 3 });
    try {
      const first = await queue.add('pay.check', { n: 1 }, { key: 'order:42', delay: 60_000 });
      expect(await queue.add('pay.check', { n: 2 }, { key: 'order:42', delay: 60_000 })).toBe(first);
      const [again] = await queue.addBulk([{ type: 'pay.check', data: { n: 3 }, opts: { key: 'order:42' } }]);
      expect(again).toBe(first);
      expect((await queue.getJob(first))?.data).toEqual({ n: 1 });
      const other = await queue.add('x', null, { id: 'mine', delay: 60_000 });
      expect(await queue.add('x', null, { id: 'mine' })).toBe(other);
      expect((await queue.counts()).delayed).toBe(2);
      await queue.runNow('mine');
      expect((await queue.getJob('mine'))?.state).toBe('ready');
      expect(await queue.cancel(first)).toBe('removed');
      expect(await queue.cancel(first)).toBe('not-found');
      await expect(queue.runNow('nope')).rejects.toThrow(/nope/);
      await queue.pause();
      expect((await queue.counts()).paused).toBe(true);
      await queue.resume();
      expect((await queue.counts()).ready).toBe(1);
      await queue.cancel('mine');
    } finally {
      await queue.close();
    }
  });

  it('says which calls are per shard, and takes a shard by its own name', async () => {
    const name = uniqueName('sh');
    const queue = new Queue(name, { connection: redisUrl(), shards: 2 });
    const shard = new Queue(`${name}#1`, { connection: redisUrl() });
    try {
      await expect(queue.jobs('ready')).rejects.toThrow(ValidationError);
      await expect(queue.schedules()).rejects.toThrow(
        /per shard on a sharded queue: ask queue\.shards\[0…1\]/,
      );
      expect(queue.shards.map((s) => s.name)).toEqual([`${name}#0`, `${name}#1`]);
      const ids = await queue.addBulk(
        Array.from({ length: 20 }, () => ({ type: 'x', opts: { delay: 60_000 } })),
      );
      const onShard1 = (await shard.jobs('delayed', { limit: 100 })).map((j) => j.id);
      expect(onShard1.length).toBeGreaterThan(0);
      expect(onShard1.every((id) => ids.includes(id))).toBe(true);
      expect(() => new Queue(`${name}#1`, { connection: redisUrl(), shards: 2 })).toThrow(
        /is itself a shard/,
      );
      for (const id of ids) await queue.cancel(id);
    } finally {
      await shard.close();
      await queue.close();
    }
  });

  it('is served by a Worker and a Scheduler that know only its name and shard count', async () => {
    // Producers and workers often live in different programs: `dueq start --shards` works so.
    const name = uniqueName('sh');
    const queue = new Queue(name, { connection: redisUrl(), shards: 3 });
    const runs = new Map<number, number>();
    const worker = new Worker(
      name,
      {
        n: async (job) => {
          const { n } = job.data as { n: number };
          runs.set(n, (runs.get(n) ?? 0) + 1);
        },
      },
      { connection: redisUrl(), shards: 3 },
    );
    const scheduler = new Scheduler(name, { connection: redisUrl(), shards: 3 });
    try {
      await scheduler.start();
      await queue.addBulk(Array.from({ length: 90 }, (_, n) => ({ type: 'n', data: { n } })));
      for (let n = 90; n < 120; n++) await queue.add('n', { n }, { delay: 30 + n });
      await expect.poll(() => runs.size, { timeout: 10_000 }).toBe(120);
      await sleep(100);
      expect([...runs.values()].every((count) => count === 1)).toBe(true);
      expect(await queue.doctor()).toMatchObject({ ok: true, problems: [] });
    } finally {
      await worker.close();
      await scheduler.close();
      await queue.close();
    }
  });

  it('refuses a shard count that contradicts the Queue it is given, or a shard of a shard', () => {
    const name = uniqueName('sh');
    const queue = new Queue(name, { connection: redisUrl(), shards: 2 });
    try {
      expect(() => new Worker(queue, {}, { shards: 3 })).toThrow(/`shards` to match the Queue's 2, got 3/);
      expect(() => new Scheduler(`${name}#0`, { connection: redisUrl(), shards: 2 })).toThrow(
        /is itself a shard/,
      );
      expect(() => new Worker(name, {}, { connection: redisUrl(), shards: 0 })).toThrow(/`shards`/);
    } finally {
      void queue.close();
    }
  });
});
