import { describe, expect, it } from 'vitest';
import { SERIES } from '../../src/events/series.js';
import { type JobEvent, QueueEvents, UnrecoverableError } from '../../src/index.js';
import { Store } from '../../src/redis/store.js';
import { redisUrl, useQueues } from '../support/harness.js';
import { tsxProcess } from '../support/processes.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('events, inspection and series', () => {
  const t = useQueues();

  function listen(events: QueueEvents) {
    const seen: [string, JobEvent][] = [];
    for (const name of [
      'added',
      'active',
      'completed',
      'failed',
      'retrying',
      'dead',
      'cancelled',
      'reclaimed',
    ] as const) {
      events.on(name, (e) => seen.push([name, e]));
    }
    return seen;
  }

  it('streams every change of a job to subscribers', async () => {
    const queue = t.queue();
    const events = new QueueEvents(queue);
    t.onClose(() => events.close());
    await events.waitUntilReady();
    const seen = listen(events);
    t.worker(queue, {
      ok: async () => sleep(30),
      bad: async () => {
        throw new UnrecoverableError('no such order');
      },
    });
    const ok = await queue.add('ok', null, { delay: 100 });
    const bad = await queue.add('bad');
    const gone = await queue.add('ok', null, { delay: 60_000 });
    await queue.cancel(gone);
    await expect.poll(() => seen.filter(([n]) => n === 'completed' || n === 'dead').length).toBe(2);
    const of = (id: string) => seen.filter(([, e]) => e.jobId === id).map(([n]) => n);
    expect(of(ok)).toEqual(['added', 'active', 'completed']);
    expect(of(bad)).toEqual(['added', 'active', 'failed', 'dead']);
    expect(of(gone)).toEqual(['added', 'cancelled']);
    const active = seen.find(([n, e]) => n === 'active' && e.jobId === ok)?.[1];
    expect(active).toMatchObject({ type: 'ok', attempt: 1 });
    expect(active?.lateMs).toBeGreaterThanOrEqual(0);
    expect(active?.lateMs).toBeLessThan(100);
    const completed = seen.find(([n, e]) => n === 'completed' && e.jobId === ok)?.[1];
    expect(completed?.durationMs).toBeGreaterThanOrEqual(25);
    expect(seen.find(([n, e]) => n === 'dead' && e.jobId === bad)?.[1]).toMatchObject({
      error: 'no such order',
      attempt: 1,
    });
  });

  it('reaches subscribers from a worker in another process', async () => {
    const queue = t.queue();
    const events = new QueueEvents(queue.name, { connection: redisUrl() });
    t.onClose(() => events.close());
    await events.waitUntilReady();
    const seen = listen(events);
    const worker = await tsxProcess(new URL('../support/worker-process.ts', import.meta.url), [
      redisUrl(),
      queue.name,
    ]);
    t.onClose(() => worker.stop());
    const id = await queue.add('echo', { hello: 'there' });
    const failing = await queue.add('boom', null, { maxAttempts: 2, backoff: { type: 'fixed', delay: 10 } });
    await expect.poll(() => seen.filter(([n]) => n === 'dead').length, { timeout: 5_000 }).toBe(1);
    expect(seen.filter(([, e]) => e.jobId === id).map(([n]) => n)).toEqual(['added', 'active', 'completed']);
    expect(seen.filter(([, e]) => e.jobId === failing).map(([n]) => n)).toEqual([
      'added',
      'active',
      'failed',
      'retrying',
      'active',
      'failed',
      'dead',
    ]);
    expect(seen.find(([n]) => n === 'retrying')?.[1].error).toBe('boom from another process');
  });

  it('lists jobs by state, paged, in the order they will run', async () => {
    const queue = t.queue();
    await queue.pause();
    const delayed = [];
    for (let i = 0; i < 5; i++) delayed.push(await queue.add('x', i, { delay: 60_000 - i * 1_000 }));
    await queue.add('x', 'plain');
    await queue.add('x', 'urgent', { priority: 9 });
    expect((await queue.jobs('delayed')).map((j) => j.data)).toEqual([4, 3, 2, 1, 0]);
    expect((await queue.jobs('delayed', { offset: 1, limit: 2 })).map((j) => j.data)).toEqual([3, 2]);
    expect((await queue.jobs('ready')).map((j) => j.data)).toEqual(['urgent', 'plain']);
    expect((await queue.jobs('ready', { offset: 1 })).map((j) => j.data)).toEqual(['plain']);
    expect(await queue.jobs('active')).toEqual([]);
    await expect(queue.jobs('waiting' as never)).rejects.toThrow(
      /Expected a job state \(delayed, ready, active, dead, done\)/,
    );
    await expect(queue.jobs('ready', { limit: 0 })).rejects.toThrow(/`limit`/);
    const snapshot = await queue.snapshot();
    expect(snapshot.counts).toEqual({ delayed: 5, ready: 2, active: 0, dead: 0, done: 0, paused: true });
    expect(snapshot.totals.added).toBe(7);
    await sleep(50);
    expect((await queue.snapshot()).oldestReadyAgeMs).toBeGreaterThanOrEqual(50);
    for (const id of delayed) await queue.cancel(id);
    await queue.resume();
  });

  it('keeps throughput and lateness in Redis for charts', async () => {
    const queue = t.queue();
    t.worker(queue, {
      x: async (job) => {
        if (job.data === 'fail') throw new UnrecoverableError('no');
      },
    });
    await queue.addBulk(Array.from({ length: 30 }, () => ({ type: 'x' })));
    await queue.add('x', 'fail');
    await expect.poll(async () => (await queue.counts()).done).toBe(30);
    const series = await queue.series({ rangeMs: 60_000 });
    expect(series.stepMs).toBe(10_000);
    expect(series.points).toHaveLength(6);
    const sum = (k: 'added' | 'completed' | 'failed' | 'dead') => series.points.reduce((n, p) => n + p[k], 0);
    expect([sum('added'), sum('completed'), sum('failed'), sum('dead')]).toEqual([31, 30, 1, 1]);
    const late = series.points.map((p) => p.lateness).filter((l) => l !== null);
    expect(late.reduce((n, l) => n + (l?.count ?? 0), 0)).toBe(31);
    for (const l of late) expect(l?.p99).toBeLessThanOrEqual(l?.max ?? 0);
    const minute = await queue.series({ rangeMs: 600_000, stepMs: 60_000 });
    expect(minute.points.reduce((n, p) => n + p.completed, 0)).toBe(30);
    await expect(queue.series({ stepMs: 15_000 })).rejects.toThrow(/multiple of 10000/);
    const recent = await queue.recentEvents({ count: 5 });
    expect(recent[0]?.event).toBeDefined();
    expect(recent[0]?.at).toBeGreaterThan(Date.now() - 60_000);
  });

  it('trims chart buckets past their retention', async () => {
    const queue = t.queue();
    const [s] = await queue.client.time();
    const now = Number(s) * 1000;
    const old = now - SERIES.retentionMs - 60_000;
    const oldBucket = old - (old % SERIES.bucketMs);
    const recentBucket = now - (now % SERIES.bucketMs);
    await queue.client.hset(queue.keys.series, `${oldBucket}|completed`, 5, `${recentBucket}|completed`, 7);
    const store = new Store(queue.client, queue.keys);
    // The first pass marks where trimming starts; buckets that expire after it are deleted.
    expect(await store.trimSeries(SERIES.retentionMs, SERIES.bucketMs, ['completed'])).toBe(0);
    await queue.client.hset(queue.keys.meta, 'seriesTrimmedTo', oldBucket - SERIES.bucketMs);
    while ((await store.trimSeries(SERIES.retentionMs, SERIES.bucketMs, ['completed'])) > 0);
    expect(await queue.client.hget(queue.keys.series, `${oldBucket}|completed`)).toBeNull();
    expect(await queue.client.hget(queue.keys.series, `${recentBucket}|completed`)).toBe('7');
  });
});
