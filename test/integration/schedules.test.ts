import { describe, expect, it } from 'vitest';
import { type Queue, ValidationError } from '../../src/index.js';
import { redisUrl, useQueues } from '../support/harness.js';
import { tsxProcess } from '../support/processes.js';
import { fireTime, recorder, redisNow } from '../support/schedules.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function schedulerProcess(queue: Queue) {
  return tsxProcess(new URL('../support/scheduler-process.ts', import.meta.url), [redisUrl(), queue.name]);
}

describe('schedules', () => {
  const t = useQueues();

  it('stores a schedule, lists it, and removes it', async () => {
    const queue = t.queue();
    const info = await queue.schedule('report.daily', {
      cron: '0 2 * * *',
      tz: 'Asia/Shanghai',
      type: 'report',
      data: { kind: 'daily' },
    });
    expect(info).toMatchObject({
      name: 'report.daily',
      cron: '0 2 * * *',
      tz: 'Asia/Shanghai',
      type: 'report',
      data: { kind: 'daily' },
      version: 1,
      count: 0,
      overlap: 'skip',
      catchUp: 'one',
      done: false,
    });
    // The next 02:00 in Shanghai is 18:00 UTC.
    expect(new Date(info.next as number).getUTCHours()).toBe(18);
    const again = await queue.schedule('report.daily', {
      cron: '0 3 * * *',
      tz: 'Asia/Shanghai',
      type: 'report',
    });
    expect(again.version).toBe(2);
    expect((await queue.schedules()).map((s) => [s.name, s.version])).toEqual([['report.daily', 2]]);
    expect(await queue.unschedule('report.daily')).toBe(true);
    expect(await queue.unschedule('report.daily')).toBe(false);
    expect(await queue.schedules()).toEqual([]);
  });

  it.each([
    [{ type: 'x' }, /either `cron` or `every`/],
    [{ cron: '* * * * *', every: '1m', type: 'x' }, /either `cron` or `every`/],
    [{ cron: '61 * * * *', type: 'x' }, /`cron` to be a cron pattern like '0 2 \* \* \*': .*minute/],
    [{ cron: '0 2 * * *', tz: 'Mars/Olympus', type: 'x' }, /valid `tz`/],
    [{ every: '1m', tz: 'UTC', type: 'x' }, /`tz` applies to `cron` schedules only/],
    [{ every: '100ms', type: 'x' }, /`every` to be at least 1000 ms/],
    [{ every: 'often', type: 'x' }, /`every`/],
    [{ every: '1m' }, /`type`/],
    [{ every: '1m', type: 'x', overlap: 'maybe' }, /`overlap` to be 'skip' or 'allow'/],
    [{ every: '1m', type: 'x', catchUp: 'some' }, /`catchUp` to be 'none', 'one' or 'all'/],
    [{ every: '1m', type: 'x', limit: 0 }, /`limit`/],
    [{ every: '1m', type: 'x', opts: { delay: 5 } }, /Unknown option `delay`/],
    [{ every: '1m', type: 'x', data: { f: () => 1 } }, /\$\.f is a function/],
    [{ every: '1m', type: 'x', startAt: 10, endAt: 5 }, /`endAt` to be after `startAt`/],
  ])('refuses %j, storing nothing', async (options, message) => {
    const queue = t.queue();
    await expect(queue.schedule('s', options as never)).rejects.toThrow(ValidationError);
    await expect(queue.schedule('s', options as never)).rejects.toThrow(message);
    expect(await queue.schedules()).toEqual([]);
  });

  it('runs an every-second schedule once per fire time, on time', async () => {
    const queue = t.queue();
    const ran = recorder(t, queue);
    await t.scheduler(queue).start();
    await queue.schedule('tick', { every: '1s', type: 'tick', data: { n: 1 } });
    await expect.poll(() => ran.length, { timeout: 6_000 }).toBeGreaterThanOrEqual(4);
    const fires = ran.map((r) => fireTime(r.id));
    for (let i = 1; i < fires.length; i++)
      expect((fires[i] as number) - (fires[i - 1] as number)).toBe(1_000);
    for (const r of ran) {
      expect(r.dueAt).toBe(fireTime(r.id));
      expect(r.startedAt - r.dueAt).toBeGreaterThanOrEqual(0);
      expect(r.startedAt - r.dueAt).toBeLessThan(250);
      expect(r.data).toEqual({ n: 1 });
    }
  });

  it('with two Scheduler processes for 10 s, makes 10 ± 1 occurrences and no fire time twice', async () => {
    const queue = t.queue();
    const ran = recorder(t, queue);
    const schedulers = await Promise.all([schedulerProcess(queue), schedulerProcess(queue)]);
    await queue.schedule('tick', { every: '1s', type: 'tick' });
    await sleep(10_000);
    await Promise.all(schedulers.map((s) => s.stop()));
    // Occurrences made ahead of their time (up to a second) finish after the schedulers stop.
    await sleep(1_500);
    const fires = ran.map((r) => fireTime(r.id));
    expect(new Set(fires).size).toBe(fires.length);
    expect(fires.length).toBeGreaterThanOrEqual(9);
    expect(fires.length).toBeLessThanOrEqual(11);
    expect((await queue.schedules())[0]?.count).toBe(fires.length);
  });

  it('drops occurrences of an older version: none of them runs after the schedule changed', async () => {
    const queue = t.queue();
    const ran = recorder(t, queue);
    await t.scheduler(queue).start();
    await queue.schedule('tick', { every: '1s', type: 'tick', data: { v: 1 } });
    await expect.poll(() => ran.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(1);
    // The next occurrence of version 1 is already waiting, made ahead of its time.
    await expect
      .poll(async () => (await queue.counts()).delayed, { timeout: 3_000 })
      .toBeGreaterThanOrEqual(1);
    const bumped = Date.now();
    await queue.schedule('tick', { every: '1s', type: 'tick', data: { v: 2 } });
    await sleep(3_500);
    expect(ran.filter((r) => r.startedAt > bumped + 50).map((r) => r.data)).toEqual(
      Array(ran.filter((r) => r.startedAt > bumped + 50).length).fill({ v: 2 }),
    );
    expect(ran.filter((r) => (r.data as { v: number }).v === 2).length).toBeGreaterThanOrEqual(2);
  });

  it('drops, when it comes due, an occurrence whose schedule version is gone', async () => {
    const queue = t.queue();
    const ran = recorder(t, queue);
    await queue.schedule('tick', { every: '1h', type: 'tick', data: { v: 2 } });
    // An occurrence a scheduler made under version 1 and nobody dropped (as after a lost update).
    const stale = 'sched:tick:1';
    const now = await redisNow(queue);
    await queue.client.hset(queue.keys.jobPrefix + stale, {
      type: 'tick',
      data: '{"v":1}',
      state: 'delayed',
      attempt: 0,
      maxAttempts: 3,
      backoff: 'e:1000:3600000:0',
      createdAt: now,
      dueAt: now + 200,
      sched: 'tick',
      schedVersion: '0',
    });
    await queue.client.zadd(queue.keys.delayed, now + 200, stale);
    await t.scheduler(queue).start();
    await sleep(1_500);
    expect(ran).toEqual([]);
    expect(await queue.getJob(stale)).toBeNull();
    expect(Number(await queue.client.hget(queue.keys.stats, 'skipped'))).toBe(1);
  });

  it('unschedule drops the occurrences that have not started', async () => {
    const queue = t.queue();
    const ran = recorder(t, queue);
    await t.scheduler(queue).start();
    const startAt = (await redisNow(queue)) + 1_500;
    await queue.schedule('tick', { every: '10s', type: 'tick', startAt });
    await expect.poll(async () => (await queue.counts()).delayed, { timeout: 3_000 }).toBe(1);
    expect(await queue.unschedule('tick')).toBe(true);
    expect((await queue.counts()).delayed).toBe(0);
    await sleep(1_500);
    expect(ran).toEqual([]);
  });

  it('runs a cron with seconds in its time zone', async () => {
    const queue = t.queue();
    const ran = recorder(t, queue);
    await t.scheduler(queue).start();
    await queue.schedule('tick', { cron: '*/2 * * * * *', tz: 'America/New_York', type: 'tick' });
    await expect.poll(() => ran.length, { timeout: 6_000 }).toBeGreaterThanOrEqual(2);
    for (const r of ran) expect(fireTime(r.id) % 2_000).toBe(0);
  });
});
