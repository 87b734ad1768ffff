import { describe, expect, it } from 'vitest';
import { deferred, useQueues } from '../support/harness.js';

describe('doctor and damaged state', () => {
  const t = useQueues();

  it('finds nothing wrong with a healthy queue in every state', async () => {
    const queue = t.queue({ defaultJobOptions: { keepCompleted: true } });
    const gate = deferred();
    await queue.add('ok');
    await queue.add('fail', null, { maxAttempts: 1 });
    await queue.add('hold');
    t.worker(queue, {
      ok: async () => {},
      fail: async () => {
        throw new Error('x');
      },
      hold: () => gate.promise,
    });
    await expect.poll(() => queue.counts()).toMatchObject({ done: 1, dead: 1, active: 1 });
    await queue.pause();
    await queue.add('later', null, { delay: 60_000 });
    await queue.add('now', null, { priority: 3 });
    await queue.add('plain');
    expect(await queue.counts()).toEqual({ delayed: 1, ready: 2, active: 1, dead: 1, done: 1, paused: true });
    const report = await queue.doctor();
    expect(report).toEqual({ ok: true, jobs: 6, problems: [], repaired: 0 });
    gate.resolve();
    await queue.resume();
  });

  it('raises no false alarm while jobs move under it', async () => {
    const queue = t.queue();
    t.worker(queue, { x: async () => {}, y: async () => {} }, { concurrency: 8 });
    const adding = queue.addBulk(
      Array.from({ length: 3_000 }, (_, i) => ({ type: i % 2 ? 'x' : 'y', opts: { delay: i % 50 } })),
    );
    for (let i = 0; i < 5; i++) expect((await queue.doctor()).problems).toEqual([]);
    await adding;
  });

  it('puts a job hash that is in no structure back in ready, where it runs (seed 000 §4.2)', async () => {
    const queue = t.queue();
    const id = await queue.add('x', { n: 1 }, { delay: 60_000 });
    await queue.client.zrem(queue.keys.delayed, id);
    const report = await queue.doctor();
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([
      { kind: 'orphan-job', id, state: 'delayed', detail: `job ${id} (delayed) is in no structure` },
    ]);
    expect((await queue.doctor({ repair: true })).repaired).toBe(1);
    expect((await queue.getJob(id))?.state).toBe('ready');
    const ran: unknown[] = [];
    t.worker(queue, { x: async (job) => void ran.push(job.data) });
    await expect.poll(() => ran).toEqual([{ n: 1 }]);
  });

  it('drops an id that has no job hash', async () => {
    const queue = t.queue();
    await queue.client.zadd(queue.keys.delayed, 1, 'ghost');
    await queue.client.rpush(queue.keys.ready, 'ghost2');
    const report = await queue.doctor({ repair: true });
    expect(report.problems.map((p) => p.kind)).toEqual(['missing-job', 'missing-job']);
    expect(report.repaired).toBe(2);
    expect((await queue.doctor()).ok).toBe(true);
  });

  it('keeps an id found in two structures only where its state says', async () => {
    const queue = t.queue();
    const id = await queue.add('x', null, { delay: 60_000 });
    await queue.client.rpush(queue.keys.ready, id);
    const report = await queue.doctor({ repair: true });
    expect(report.problems).toEqual([
      { kind: 'duplicate', id, in: ['delayed', 'ready'], detail: `job ${id} is in delayed and ready` },
    ]);
    expect((await queue.doctor()).ok).toBe(true);
    expect(await queue.counts()).toMatchObject({ delayed: 1, ready: 0 });
  });

  it('heals at run time: a duplicate ready entry of a delayed job does not run it early or twice', async () => {
    const queue = t.queue();
    const id = await queue.add('x', null, { delay: 400 });
    await queue.client.rpush(queue.keys.ready, id);
    const runs: number[] = [];
    t.worker(queue, { x: async (job) => void runs.push(Date.now() - job.dueAt) });
    await new Promise((r) => setTimeout(r, 200));
    expect(runs).toEqual([]);
    await expect.poll(() => runs.length).toBe(1);
    expect(runs[0]).toBeGreaterThanOrEqual(0);
    await new Promise((r) => setTimeout(r, 100));
    expect(runs).toHaveLength(1);
  });

  it('runs a ready job whose hash has an unknown state, and sends one with no type to dead', async () => {
    const queue = t.queue();
    const odd = await queue.add('x', 'odd');
    await queue.client.hset(queue.keys.jobPrefix + odd, 'state', 'limbo');
    expect((await queue.doctor()).problems.map((p) => p.kind)).toEqual(['bad-job']);
    const typeless = await queue.add('x', 'typeless', { delay: 60_000 });
    await queue.client.hdel(queue.keys.jobPrefix + typeless, 'type');
    await queue.runNow(typeless);
    const ran: unknown[] = [];
    const worker = t.worker(queue, { x: async (job) => void ran.push(job.data) });
    await expect.poll(async () => (await queue.getJob(typeless))?.state).toBe('dead');
    await expect.poll(() => ran).toEqual(['odd']);
    expect((await queue.getJob(typeless))?.errors[0]?.message).toBe(
      `Job "${typeless}" has no type: its hash is damaged`,
    );
    expect(worker.activeCount).toBe(0);
    // The typeless job is still reported until someone removes it: it is missing its type.
    expect((await queue.doctor()).problems).toEqual([
      { kind: 'bad-job', id: typeless, detail: `job ${typeless} is missing type` },
    ]);
    await queue.dead.remove(typeless);
  });
});
