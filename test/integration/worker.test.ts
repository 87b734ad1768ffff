import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type JobInfo,
  JobTimeoutError,
  LeaseLostError,
  Queue,
  ShutdownError,
  UnrecoverableError,
  Worker,
} from '../../src/index.js';
import { Store } from '../../src/redis/store.js';
import { commandCalls, scriptCallsBetween } from '../support/command-stats.js';
import { deferred, uniqueName, useQueues } from '../support/harness.js';
import { RedisServer } from '../support/redis-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Worker', () => {
  const t = useQueues();

  it('runs at most `concurrency` jobs at once, and all of them', async () => {
    const queue = t.queue();
    let running = 0;
    let peak = 0;
    let done = 0;
    t.worker(
      queue,
      {
        slow: async () => {
          peak = Math.max(peak, ++running);
          await sleep(20);
          running--;
          done++;
        },
      },
      { concurrency: 8 },
    );
    await queue.addBulk(Array.from({ length: 60 }, () => ({ type: 'slow' })));
    await expect.poll(() => done, { timeout: 5_000 }).toBe(60);
    expect(peak).toBe(8);
  });

  it('runs higher priorities first, oldest first within a priority', async () => {
    const queue = t.queue();
    await queue.pause();
    for (const [label, priority] of [
      ['a', 0],
      ['b', 5],
      ['c', 1],
      ['d', 5],
      ['e', 10],
      ['f', 0],
    ] as const) {
      await queue.add('p', label, { priority });
    }
    const order: string[] = [];
    t.worker(queue, { p: async (job) => void order.push(job.data as string) }, { concurrency: 1 });
    await queue.resume();
    await expect.poll(() => order.length).toBe(6);
    expect(order).toEqual(['e', 'b', 'd', 'c', 'a', 'f']);
  });

  it('wakes at once for a new job, without polling', async () => {
    const queue = t.queue();
    const ran = deferred<number>();
    const worker = t.worker(queue, { x: async () => ran.resolve(performance.now()) });
    await worker.waitUntilReady();
    await sleep(100);
    const added = performance.now();
    await queue.add('x');
    // The safety-net claim comes every 5 s; anything well under that is the wake token.
    expect((await ran.promise) - added).toBeLessThan(500);
  });

  it('runs a delayed job at its due time: never early, and not a polling interval late', async () => {
    const queue = t.queue();
    const ran = deferred<number>();
    const worker = t.worker(queue, { x: async (job) => ran.resolve(Date.now() - job.dueAt) });
    await worker.waitUntilReady();
    const id = await queue.add('x', null, { delay: 300 });
    const lateness = await ran.promise;
    expect(lateness).toBeGreaterThanOrEqual(0);
    expect(lateness).toBeLessThan(200);
    await expect.poll(() => queue.getJob(id)).toBeNull();
  });

  it('hears that the earliest due time moved earlier', async () => {
    const queue = t.queue();
    const ran = deferred<string>();
    const worker = t.worker(queue, { x: async (job) => ran.resolve(job.data as string) });
    await worker.waitUntilReady();
    await queue.add('x', 'late', { delay: 10_000 });
    await sleep(50);
    const start = Date.now();
    await queue.add('x', 'soon', { delay: 200 });
    expect(await ran.promise).toBe('soon');
    expect(Date.now() - start).toBeLessThan(1_000);
  });

  it('retries with a fixed backoff, then completes', async () => {
    const queue = t.queue();
    const attempts: number[] = [];
    const failures: { dueAt: number; at: number }[] = [];
    t.worker(queue, {
      flaky: async (job) => {
        attempts.push(job.attempt);
        if (job.attempt < 3) throw new Error(`attempt ${job.attempt} failed`);
      },
    });
    const id = await queue.add('flaky', null, { backoff: { type: 'fixed', delay: 150 } });
    for (let n = 1; n <= 2; n++) {
      await expect.poll(async () => (await queue.getJob(id))?.errors.length ?? -1).toBeGreaterThanOrEqual(n);
      const job = await queue.getJob(id);
      if (job?.state === 'delayed') failures.push({ dueAt: job.dueAt, at: job.errors[n - 1]?.at ?? 0 });
    }
    await expect.poll(() => queue.getJob(id)).toBeNull();
    expect(attempts).toEqual([1, 2, 3]);
    for (const f of failures) expect(f.dueAt - f.at).toBe(150);
    expect((await queue.counts()).done).toBe(1);
  });

  /** Gaps between consecutive failures of a job that fails at once every time: each is its backoff plus a claim. */
  async function failureGaps(queue: Queue, id: string, failures: number): Promise<number[]> {
    await expect.poll(async () => (await queue.getJob(id))?.state, { timeout: 5_000 }).toBe('dead');
    const at = ((await queue.getJob(id)) as JobInfo).errors.map((e) => e.at);
    expect(at).toHaveLength(failures);
    return at.slice(1).map((t, i) => t - (at[i] as number));
  }

  it('doubles an exponential backoff up to its cap', async () => {
    const queue = t.queue();
    t.worker(queue, {
      fail: async () => {
        throw new Error('no');
      },
    });
    const id = await queue.add('fail', null, {
      maxAttempts: 4,
      backoff: { type: 'exponential', delay: 100, max: 300 },
    });
    const gaps = await failureGaps(queue, id, 4);
    [100, 200, 300].forEach((backoff, i) => {
      expect(gaps[i]).toBeGreaterThanOrEqual(backoff);
      expect(gaps[i]).toBeLessThan(backoff + 100);
    });
  });

  it('takes retry delays from a table, the last one repeating', async () => {
    const queue = t.queue();
    t.worker(queue, {
      fail: async () => {
        throw new Error('no');
      },
    });
    const id = await queue.add('fail', null, { maxAttempts: 4, backoff: [50, '250ms'] });
    const gaps = await failureGaps(queue, id, 4);
    [50, 250, 250].forEach((backoff, i) => {
      expect(gaps[i]).toBeGreaterThanOrEqual(backoff);
      expect(gaps[i]).toBeLessThan(backoff + 100);
    });
  });

  it('spreads retries with jitter, within the delay', async () => {
    const queue = t.queue();
    t.worker(
      queue,
      {
        fail: async () => {
          throw new Error('no');
        },
      },
      { concurrency: 32 },
    );
    const ids = await queue.addBulk(
      Array.from({ length: 30 }, () => ({
        type: 'fail',
        opts: { maxAttempts: 2, backoff: { type: 'fixed' as const, delay: 10_000, jitter: 0.5 } },
      })),
    );
    await expect.poll(async () => (await queue.counts()).delayed, { timeout: 5_000 }).toBe(30);
    const delays = await Promise.all(
      ids.map(async (id) => {
        const job = (await queue.getJob(id)) as JobInfo;
        return job.dueAt - (job.errors[0]?.at ?? 0);
      }),
    );
    for (const d of delays) {
      expect(d).toBeGreaterThanOrEqual(5_000);
      expect(d).toBeLessThanOrEqual(10_000);
    }
    expect(new Set(delays).size).toBeGreaterThan(10);
  });

  it('sends a job that throws UnrecoverableError straight to dead', async () => {
    const queue = t.queue();
    const dead = deferred<[JobInfo, Error]>();
    const worker = t.worker(queue, {
      charge: async () => {
        throw new UnrecoverableError('card number is invalid');
      },
    });
    worker.on('dead', (job, error) => dead.resolve([job, error]));
    const id = await queue.add('charge', { card: 'x' }, { maxAttempts: 5 });
    const [info, error] = await dead.promise;
    expect(info).toMatchObject({ id, state: 'dead', attempt: 1, data: { card: 'x' } });
    expect(error.message).toBe('card number is invalid');
    expect(await queue.getJob(id)).toMatchObject({
      state: 'dead',
      attempt: 1,
      errors: [{ message: 'card number is invalid', attempt: 1 }],
    });
  });

  it('counts a job with no handler as a failed attempt, dead with the reason when out of attempts', async () => {
    const queue = t.queue();
    t.worker(queue, { known: async () => {} });
    const id = await queue.add('unknown.type', null, {
      maxAttempts: 2,
      backoff: { type: 'fixed', delay: 20 },
    });
    await expect.poll(async () => (await queue.getJob(id))?.state).toBe('dead');
    const job = await queue.getJob(id);
    expect(job?.attempt).toBe(2);
    expect(job?.errors.map((e) => e.message)).toEqual([
      'No handler for job type "unknown.type" in this worker',
      'No handler for job type "unknown.type" in this worker',
    ]);
  });

  it('sends a job whose data is not JSON to dead with the reason', async () => {
    const queue = t.queue();
    t.worker(queue, { x: async () => {} });
    const id = await queue.add('x', null, { delay: 60_000, maxAttempts: 3 });
    await queue.client.hset(queue.keys.jobPrefix + id, 'data', '{not json');
    await queue.runNow(id);
    await expect.poll(async () => (await queue.getJob(id))?.state).toBe('dead');
    const job = await queue.getJob(id);
    expect(job?.errors[0]?.message).toBe(`Job "${id}" has data that is not valid JSON`);
    expect(job?.dataInvalid).toBe(true);
    expect(job?.data).toBe('{not json');
  });

  it('reschedules with retryIn without counting a failure', async () => {
    const queue = t.queue();
    const attempts: number[] = [];
    t.worker(queue, {
      poll: async (job) => {
        attempts.push(job.attempt);
        if (attempts.length < 4) return job.retryIn(40);
        return 'paid';
      },
    });
    const id = await queue.add('poll', null, { maxAttempts: 1 });
    await expect.poll(() => queue.getJob(id), { timeout: 5_000 }).toBeNull();
    expect(attempts).toEqual([1, 1, 1, 1]);
    expect(await queue.counts()).toMatchObject({ dead: 0, done: 1 });
  });

  it('accepts retryIn thrown instead of returned', async () => {
    const queue = t.queue();
    let runs = 0;
    t.worker(queue, {
      poll: async (job) => {
        if (++runs === 1) throw job.retryIn(30);
      },
    });
    await queue.add('poll', null, { maxAttempts: 1 });
    await expect.poll(async () => (await queue.counts()).done).toBe(1);
    expect(runs).toBe(2);
  });

  it('fires the signal when an attempt times out, and counts it as a failure', async () => {
    const queue = t.queue();
    const reasons: unknown[] = [];
    t.worker(queue, {
      hang: async (job) => {
        await new Promise((_, reject) =>
          job.signal.addEventListener('abort', () => {
            reasons.push(job.signal.reason);
            reject(job.signal.reason);
          }),
        );
      },
    });
    const id = await queue.add('hang', null, {
      timeout: 100,
      maxAttempts: 2,
      backoff: { type: 'fixed', delay: 10 },
    });
    await expect.poll(async () => (await queue.getJob(id))?.state).toBe('dead');
    expect(reasons).toHaveLength(2);
    expect(reasons[0]).toBeInstanceOf(JobTimeoutError);
    expect((await queue.getJob(id))?.errors.map((e) => e.message)).toEqual([
      'Job attempt timed out after 100 ms',
      'Job attempt timed out after 100 ms',
    ]);
  });

  it('keeps the slot of a timed-out handler that ignores its signal until it returns', async () => {
    const queue = t.queue();
    const started: Record<string, number> = {};
    t.worker(
      queue,
      {
        stubborn: async (job) => {
          started[job.data as string] = Date.now();
          if (job.data === 'first') await sleep(600);
        },
      },
      { concurrency: 1 },
    );
    const first = await queue.add('stubborn', 'first', { timeout: 100, maxAttempts: 1 });
    await queue.add('stubborn', 'second');
    await expect.poll(async () => (await queue.getJob(first))?.state).toBe('dead');
    expect(started.second).toBeUndefined();
    await expect.poll(() => started.second, { timeout: 3_000 }).toBeDefined();
    expect((started.second as number) - (started.first as number)).toBeGreaterThanOrEqual(590);
  });

  it('stores progress and extends the lease on request', async () => {
    const queue = t.queue();
    const gate = deferred();
    const progressed = deferred();
    t.worker(queue, {
      work: async (job) => {
        await job.progress(40);
        await job.extendLease('10m');
        progressed.resolve();
        await gate.promise;
      },
    });
    const id = await queue.add('work');
    await progressed.promise;
    expect((await queue.getJob(id))?.progress).toBe(40);
    const deadline = Number(await queue.client.zscore(queue.keys.active, id));
    const job = await queue.getJob(id);
    expect(deadline - (job?.startedAt ?? 0)).toBeGreaterThanOrEqual(10 * 60_000);
    gate.resolve();
    await expect.poll(() => queue.getJob(id)).toBeNull();
  });

  it('emits completed, failed, retrying and dead with the job', async () => {
    const queue = t.queue();
    const events: string[] = [];
    const worker = t.worker(queue, {
      ok: async (job) => `result of ${job.data}`,
      bad: async () => {
        throw new Error('bad');
      },
    });
    worker.on('completed', (job, result) => events.push(`completed ${job.type} ${result}`));
    worker.on('failed', (job, error) =>
      events.push(`failed ${job.type} attempt ${job.attempt}: ${error.message}`),
    );
    worker.on('retrying', (job) => events.push(`retrying ${job.type} (${job.state})`));
    worker.on('dead', (job) => events.push(`dead ${job.type} (${job.state})`));
    await queue.add('ok', 1);
    await expect.poll(() => events.length).toBe(1);
    await queue.add('bad', null, { maxAttempts: 2, backoff: { type: 'fixed', delay: 10 } });
    await expect.poll(() => events.length).toBe(5);
    expect(events).toEqual([
      'completed ok result of 1',
      'failed bad attempt 1: bad',
      'retrying bad (delayed)',
      'failed bad attempt 2: bad',
      'dead bad (dead)',
    ]);
  });

  it('renews leases while a long job runs, so it is not reclaimed', async () => {
    const queue = t.queue();
    t.scheduler(queue, { reclaimIntervalMs: 50 });
    let runs = 0;
    t.worker(
      queue,
      {
        long: async () => {
          runs++;
          await sleep(2_500);
        },
      },
      { leaseMs: 1_000 },
    );
    const id = await queue.add('long');
    await expect.poll(() => queue.getJob(id), { timeout: 6_000 }).toBeNull();
    expect(runs).toBe(1);
    expect((await queue.counts()).done).toBe(1);
  });

  /** Worker A takes the job, then stalls past its lease (as if its event loop were blocked). */
  async function stalledWorkerA(queue: Queue, backoffMs: number) {
    const gate = deferred();
    const started = deferred();
    const errors: Error[] = [];
    const completed: string[] = [];
    const runsBy: string[] = [];
    const worker = t.worker(
      queue,
      {
        job: async () => {
          runsBy.push('A');
          started.resolve();
          await gate.promise;
          return 'from A';
        },
      },
      { concurrency: 1 },
    );
    worker.on('error', (e) => errors.push(e));
    worker.on('completed', (job) => completed.push(job.id));
    const id = await queue.add('job', null, { backoff: { type: 'fixed', delay: backoffMs } });
    await started.promise;
    // The lease expires and the job is reclaimed, as the Scheduler would.
    await queue.client.zadd(queue.keys.active, 0, id);
    expect(await new Store(queue.client, queue.keys).reclaim(100, 0.5)).toEqual({ reclaimed: 1, dead: 0 });
    return { id, gate, errors, completed, runsBy };
  }

  it('refuses the result of a worker whose lease was reclaimed (fencing)', async () => {
    const queue = t.queue();
    const a = await stalledWorkerA(queue, 60_000);
    a.gate.resolve();
    await expect.poll(() => a.errors.some((e) => e instanceof LeaseLostError)).toBe(true);
    expect(a.completed).toEqual([]);
    const job = await queue.getJob(a.id);
    expect(job).toMatchObject({ state: 'delayed', attempt: 1 });
    expect(job?.errors[0]?.message).toMatch(/^Lease expired/);
    expect((await queue.counts()).done).toBe(0);
  });

  it('lets the new holder finish a reclaimed job, and never the old one', async () => {
    const queue = t.queue();
    const a = await stalledWorkerA(queue, 10);
    const completedByB = deferred();
    const workerB = t.worker(queue, { job: async () => void a.runsBy.push('B') });
    workerB.on('completed', () => completedByB.resolve());
    await completedByB.promise;
    a.gate.resolve();
    await sleep(100);
    expect(a.runsBy).toEqual(['A', 'B']);
    expect(a.completed).toEqual([]);
    expect(await queue.counts()).toMatchObject({ done: 1, active: 0, ready: 0, delayed: 0, dead: 0 });
  });

  it('hands back jobs it took ahead when its slots stay busy, so they run elsewhere', async () => {
    const queue = t.queue();
    const gate = deferred();
    const ranBy: Record<string, string> = {};
    const handlers = (name: string) => ({
      warm: async () => {},
      stuck: async () => {
        ranBy.stuck = name;
        await gate.promise;
      },
      later: async (job: { id: string; attempt: number }) => {
        ranBy[job.id] = `${name}#${job.attempt}`;
      },
    });
    await queue.pause();
    await queue.addBulk(Array.from({ length: 40 }, () => ({ type: 'warm' })));
    await queue.addBulk([{ type: 'stuck' }, { type: 'stuck' }]);
    const later = await queue.addBulk([{ type: 'later' }, { type: 'later' }]);
    t.worker(queue, handlers('A'), { concurrency: 2, prefetch: 2 });
    await queue.resume();
    // A finishes the warm-up jobs at a fast pace, so it takes the next ones ahead: both stuck
    // jobs fill its slots while the two later ones wait in its buffer.
    await expect.poll(async () => (await queue.counts()).active).toBe(4);
    const b = t.worker(queue, handlers('B'), { concurrency: 2 });
    await expect.poll(() => later.map((id) => ranBy[id]), { timeout: 3_000 }).toEqual(['B#1', 'B#1']);
    gate.resolve();
    await b.close();
    expect(ranBy.stuck).toBe('A');
  });

  it('close() lets running jobs finish and hands back the rest at once', async () => {
    const queue = t.queue();
    const finished: string[] = [];
    const reasons: unknown[] = [];
    const both = deferred();
    let started = 0;
    const worker = new Worker(
      queue,
      {
        job: async (job) => {
          if (++started === 2) both.resolve();
          if (job.data === 'short') {
            await sleep(200);
            finished.push('short');
            return;
          }
          await new Promise((resolve) =>
            job.signal.addEventListener('abort', () => resolve(reasons.push(job.signal.reason))),
          );
        },
      },
      { concurrency: 2 },
    );
    const short = await queue.add('job', 'short');
    const long = await queue.add('job', 'long');
    await both.promise;
    const closing = Date.now();
    await worker.close({ timeoutMs: 500 });
    expect(Date.now() - closing).toBeLessThan(2_000);
    expect(finished).toEqual(['short']);
    expect(await queue.getJob(short)).toBeNull();
    expect(reasons[0]).toBeInstanceOf(ShutdownError);
    // Handed back: ready again at once, the attempt given back, no lease to wait out.
    expect(await queue.getJob(long)).toMatchObject({ state: 'ready', attempt: 0 });
    const rerun = deferred<string>();
    t.worker(queue, { job: async (job) => rerun.resolve(job.data as string) });
    expect(await rerun.promise).toBe('long');
  });

  it('refuses bad options at construction', () => {
    const queue = t.queue();
    const ok = { x: async () => {} };
    expect(() => new Worker(queue, ok, { concurrency: 0 })).toThrow(/`concurrency` to be an integer from 1/);
    expect(() => new Worker(queue, ok, { concurrency: 1.5 })).toThrow(/`concurrency`/);
    expect(() => new Worker(queue, ok, { leaseMs: 100 })).toThrow(/`leaseMs` to be at least 1000/);
    expect(() => new Worker(queue, ok, { leaseMs: 'a while' })).toThrow(/`leaseMs`/);
    expect(() => new Worker(queue, {}, {})).toThrow(/at least one job type/);
    expect(() => new Worker(queue, { x: 'nope' } as never, {})).toThrow(/handler for "x" to be a function/);
    expect(() => new Worker(queue, ok, { concurency: 2 } as never)).toThrow(/Unknown option `concurency`/);
    expect(() => new Worker('bad name', ok)).toThrow(/queue name/);
  });
});

describe('Worker round trips (on a Redis of its own, to count commands)', () => {
  let server: RedisServer;
  let admin: Redis;
  beforeAll(async () => {
    server = await RedisServer.start();
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    admin.disconnect();
    await server.stop();
  });

  it('claims and acknowledges many jobs per script call', async () => {
    const queue = new Queue(uniqueName(), { connection: server.url });
    await queue.addBulk(Array.from({ length: 500 }, () => ({ type: 'noop' })));
    let done = 0;
    const before = await commandCalls(admin);
    const worker = new Worker(
      queue,
      { noop: async () => void done++ },
      { concurrency: 100, reclaimIntervalMs: 0 },
    );
    await expect.poll(() => done).toBe(500);
    await worker.close();
    const scripts = scriptCallsBetween(before, await commandCalls(admin));
    // One claim and one complete per batch of up to 100, not two calls per job.
    expect(scripts).toBeLessThan(40);
    expect((await queue.counts()).done).toBe(500);
    await queue.close();
  });

  it('sends no commands while idle but its blocking wait', async () => {
    const queue = new Queue(uniqueName(), { connection: server.url });
    const worker = new Worker(queue, { noop: async () => {} }, { reclaimIntervalMs: 0 });
    await worker.waitUntilReady();
    await sleep(200);
    const before = await commandCalls(admin);
    await sleep(2_000);
    const after = await commandCalls(admin);
    expect(scriptCallsBetween(before, after)).toBe(0);
    expect((after.blpop ?? 0) - (before.blpop ?? 0)).toBeLessThanOrEqual(1);
    await worker.close();
    await queue.close();
  });
});
