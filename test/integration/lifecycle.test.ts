import { describe, expect, it } from 'vitest';
import {
  ClosedError,
  InvalidStateError,
  JobCancelledError,
  JobNotFoundError,
  Queue,
  ValidationError,
} from '../../src/index.js';
import { deferred, redisUrl, useQueues } from '../support/harness.js';

describe('queue operations', () => {
  const t = useQueues();

  describe('cancel', () => {
    it('removes a delayed or ready job, which then never runs', async () => {
      const queue = t.queue();
      const delayed = await queue.add('x', null, { delay: 200 });
      const ready = await queue.add('x');
      const prio = await queue.add('x', null, { priority: 5 });
      expect(await queue.cancel(delayed)).toBe('removed');
      expect(await queue.cancel(ready)).toBe('removed');
      expect(await queue.cancel(prio)).toBe('removed');
      expect(await queue.getJob(delayed)).toBeNull();
      const ran: string[] = [];
      t.worker(queue, { x: async (job) => void ran.push(job.id) });
      await new Promise((r) => setTimeout(r, 400));
      expect(ran).toEqual([]);
      expect(await queue.counts()).toMatchObject({ delayed: 0, ready: 0, active: 0, done: 0 });
    });

    it('fires the AbortSignal of a running job, which is then deleted', async () => {
      const queue = t.queue();
      const started = deferred();
      const reason = deferred<unknown>();
      t.worker(queue, {
        long: async (job) => {
          started.resolve();
          await new Promise((_, reject) =>
            job.signal.addEventListener('abort', () => {
              reason.resolve(job.signal.reason);
              reject(job.signal.reason);
            }),
          );
        },
      });
      const id = await queue.add('long', null, { maxAttempts: 5 });
      await started.promise;
      expect(await queue.cancel(id)).toBe('signalled');
      expect(await reason.promise).toBeInstanceOf(JobCancelledError);
      await expect.poll(() => queue.getJob(id)).toBeNull();
      expect(await queue.counts()).toMatchObject({ delayed: 0, ready: 0, active: 0, dead: 0 });
    });

    it('says not-found for an unknown id and finished for a dead job', async () => {
      const queue = t.queue();
      expect(await queue.cancel('nope')).toBe('not-found');
      const id = await queue.add('bad', null, { maxAttempts: 1 });
      t.worker(queue, {
        bad: async () => {
          throw new Error('boom');
        },
      });
      await expect.poll(async () => (await queue.getJob(id))?.state).toBe('dead');
      expect(await queue.cancel(id)).toBe('finished');
      await expect(queue.cancel('')).rejects.toThrow(ValidationError);
    });
  });

  describe('runNow', () => {
    it('makes a delayed job run at once', async () => {
      const queue = t.queue();
      const ran = deferred<number>();
      t.worker(queue, { later: async () => ran.resolve(Date.now()) });
      const id = await queue.add('later', null, { delay: '1h' });
      const before = Date.now();
      await queue.runNow(id);
      expect((await ran.promise) - before).toBeLessThan(1_000);
    });

    it('accepts a job already ready, and refuses a running one and an unknown id', async () => {
      const queue = t.queue();
      const ready = await queue.add('x', 'ready');
      await queue.runNow(ready);
      expect((await queue.getJob(ready))?.state).toBe('ready');
      await queue.cancel(ready);
      const gate = deferred();
      const started = deferred();
      t.worker(queue, {
        x: async () => {
          started.resolve();
          await gate.promise;
        },
      });
      const running = await queue.add('x', 'running');
      await started.promise;
      await expect(queue.runNow(running)).rejects.toThrow(InvalidStateError);
      await expect(queue.runNow(running)).rejects.toThrow(
        `Job "${running}" is active; only delayed or dead jobs can be run now`,
      );
      await expect(queue.runNow('missing')).rejects.toThrow(JobNotFoundError);
      expect((await queue.getJob(running))?.state).toBe('active');
      gate.resolve();
    });

    it('replays a dead job with its attempts reset', async () => {
      const queue = t.queue();
      let calls = 0;
      t.worker(queue, {
        flaky: async () => {
          if (++calls === 1) throw new Error('first time fails');
        },
      });
      const id = await queue.add('flaky', null, { maxAttempts: 1 });
      await expect.poll(async () => (await queue.getJob(id))?.state).toBe('dead');
      await queue.runNow(id);
      await expect.poll(() => queue.getJob(id)).toBeNull();
      expect(calls).toBe(2);
      expect((await queue.counts()).done).toBe(1);
    });
  });

  describe('pause and resume', () => {
    it('stops every worker from claiming until resumed; due jobs wait in ready', async () => {
      const queue = t.queue();
      const ran: number[] = [];
      const worker = t.worker(queue, { x: async (job) => void ran.push(job.data as number) });
      await worker.waitUntilReady();
      await queue.pause();
      await queue.add('x', 1);
      await queue.add('x', 2, { delay: 50 });
      await new Promise((r) => setTimeout(r, 300));
      expect(ran).toEqual([]);
      const counts = await queue.counts();
      expect(counts.paused).toBe(true);
      expect(counts.ready + counts.delayed).toBe(2);
      await queue.resume();
      await expect.poll(() => ran.length).toBe(2);
      expect((await queue.counts()).paused).toBe(false);
    });
  });

  describe('dead letters', () => {
    it('lists newest first, replays oldest first with a limit, removes and purges', async () => {
      const queue = t.queue();
      let failing = true;
      const ran: number[] = [];
      t.worker(queue, {
        job: async (job) => {
          if (failing) throw new Error(`failed ${job.data}`);
          ran.push(job.data as number);
        },
      });
      for (let i = 0; i < 5; i++) {
        await queue.add('job', i, { maxAttempts: 1 });
        await expect.poll(async () => (await queue.counts()).dead).toBe(i + 1);
      }
      const listed = await queue.dead.list();
      expect(listed.map((j) => j.data)).toEqual([4, 3, 2, 1, 0]);
      expect(listed[0]?.errors.map((e) => e.message)).toEqual(['failed 4']);
      expect((await queue.dead.list({ offset: 1, limit: 2 })).map((j) => j.data)).toEqual([3, 2]);

      failing = false;
      expect(await queue.dead.replay({ limit: 2 })).toBe(2);
      await expect.poll(() => ran.slice().sort()).toEqual([0, 1]);
      const replayed = (await queue.counts()).done;
      expect(replayed).toBe(2);

      const [newest] = await queue.dead.list({ limit: 1 });
      await queue.dead.remove(newest?.id as string);
      expect(await queue.getJob(newest?.id as string)).toBeNull();
      await expect(queue.dead.remove(newest?.id as string)).rejects.toThrow(JobNotFoundError);
      expect(await queue.dead.purge()).toBe(2);
      expect((await queue.counts()).dead).toBe(0);
      expect(await queue.dead.replay()).toBe(0);
    });

    it('refuses to remove a job that is not dead', async () => {
      const queue = t.queue();
      const id = await queue.add('x', null, { delay: 60_000 });
      await expect(queue.dead.remove(id)).rejects.toThrow(/is delayed; only dead jobs can be removed/);
      expect((await queue.getJob(id))?.state).toBe('delayed');
    });

    it('refuses bad paging options', async () => {
      const queue = t.queue();
      await expect(queue.dead.list({ limit: 0 })).rejects.toThrow(/`limit`/);
      await expect(queue.dead.list({ offset: -1 })).rejects.toThrow(/`offset`/);
      await expect(queue.dead.replay({ limit: 1.5 })).rejects.toThrow(/`limit`/);
    });
  });

  it('keeps completed jobs with their result when asked, trimmed by count', async () => {
    const queue = t.queue({ defaultJobOptions: { keepCompleted: { count: 3 } } });
    t.worker(queue, { sum: async (job) => (job.data as number[]).reduce((a, b) => a + b, 0) });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(await queue.add('sum', [i, 10]));
      await expect.poll(async () => (await queue.getJob(ids[i] as string))?.state).toBe('done');
    }
    expect(await queue.getJob(ids[0] as string)).toBeNull();
    expect(await queue.getJob(ids[1] as string)).toBeNull();
    const kept = await queue.getJob(ids[4] as string);
    expect(kept).toMatchObject({ state: 'done', result: 14, attempt: 1 });
    expect(kept?.finishedAt).toBeGreaterThanOrEqual(kept?.startedAt ?? Number.POSITIVE_INFINITY);
    expect((await queue.counts()).done).toBe(5);
  });

  it('refuses every call once closed', async () => {
    const queue = new Queue('closing-queue', { connection: redisUrl() });
    await queue.close();
    await expect(queue.add('x')).rejects.toThrow(ClosedError);
    await expect(queue.counts()).rejects.toThrow('Queue "closing-queue" is closed');
    await expect(queue.dead.list()).rejects.toThrow(ClosedError);
    await queue.close();
  });

  it('refuses a bad queue name', () => {
    for (const name of ['', 'has space', 'a{b}', '-lead', 'x'.repeat(101), 5]) {
      expect(() => new Queue(name as string)).toThrow(/Expected queue name/);
    }
  });
});
