import { describe, expect, it } from 'vitest';
import { useQueues } from '../support/harness.js';
import { fireTime, recorder, redisNow } from '../support/schedules.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Schedules over time: catch-up after an outage, overlap, limits (slow: each runs for seconds). */
describe('schedules over time', () => {
  const t = useQueues();

  it.each([
    ['none', 0],
    ['one', 1],
    ['all', 'every'],
  ] as const)(
    'after a 5 s outage, catchUp %s makes %s of the missed occurrences',
    async (catchUp, expected) => {
      const queue = t.queue();
      const ran = recorder(t, queue);
      let scheduler = t.scheduler(queue);
      await scheduler.start();
      await queue.schedule('tick', { every: '1s', type: 'tick', catchUp, overlap: 'allow' });
      await sleep(2_500);
      await scheduler.close();
      const down = await redisNow(queue);
      await sleep(5_000);
      const up = await redisNow(queue);
      scheduler = t.scheduler(queue);
      await scheduler.start();
      await sleep(2_000);
      // Fire times well inside the outage: no scheduler was there to make them.
      const missed = [];
      const first = Math.ceil((down + 1_300) / 1_000) * 1_000;
      const anchorOffset = fireTime(ran[0]?.id as string) % 1_000;
      for (let f = first + anchorOffset; f < up - 1_300; f += 1_000) missed.push(f);
      expect(missed.length).toBeGreaterThanOrEqual(2);
      const made = new Set(ran.map((r) => fireTime(r.id)));
      const caughtUp = missed.filter((f) => made.has(f));
      if (expected === 'every') expect(caughtUp).toEqual(missed);
      else expect(caughtUp.length).toBe(expected);
      if (expected === 1) expect(caughtUp[0]).toBe(Math.max(...[...made].filter((f) => f < up - 1_000)));
    },
  );

  it("skips an occurrence that comes due while the previous still runs (overlap 'skip')", async () => {
    const queue = t.queue();
    let running = 0;
    let overlapped = false;
    const ran = recorder(t, queue, async () => {
      if (++running > 1) overlapped = true;
      await sleep(2_300);
      running--;
    });
    const scheduler = t.scheduler(queue);
    const skipped: number[] = [];
    await scheduler.start();
    await queue.schedule('tick', { every: '1s', type: 'tick' });
    await sleep(7_000);
    expect(overlapped).toBe(false);
    expect(ran.length).toBeGreaterThanOrEqual(2);
    expect(ran.length).toBeLessThanOrEqual(4);
    skipped.push(Number(await queue.client.hget(queue.keys.stats, 'skipped')));
    expect(skipped[0]).toBeGreaterThanOrEqual(2);
  });

  it("runs occurrences side by side with overlap 'allow'", async () => {
    const queue = t.queue();
    let running = 0;
    let peak = 0;
    recorder(t, queue, async () => {
      peak = Math.max(peak, ++running);
      await sleep(2_300);
      running--;
    });
    await t.scheduler(queue).start();
    await queue.schedule('tick', { every: '1s', type: 'tick', overlap: 'allow' });
    await sleep(4_500);
    expect(peak).toBeGreaterThanOrEqual(2);
  });

  it('stops after `limit` occurrences', async () => {
    const queue = t.queue();
    const ran = recorder(t, queue);
    await t.scheduler(queue).start();
    await queue.schedule('tick', { every: '1s', type: 'tick', limit: 3 });
    await sleep(5_000);
    expect(ran).toHaveLength(3);
    expect((await queue.schedules())[0]).toMatchObject({ count: 3, done: true });
  });
});
