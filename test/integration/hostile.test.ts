import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DueqError, type JobOptions, type Queue } from '../../src/index.js';
import { keysOf, useQueues } from '../support/harness.js';

/**
 * Hostile input: random payloads and option objects thrown at `add`, and hand-corrupted Redis
 * state thrown at a worker. Every add either stores exactly what it was given or is refused with
 * one clear line and stores nothing; a damaged job ends in dead with the reason, or doctor
 * repairs it, and the worker goes on.
 */

/** Whether JSON carries `value` unchanged: the rule the payload check enforces, written plainly. */
function jsonFaithful(value: unknown, seen = new Set<object>()): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object') return false;
  if (seen.has(value)) return false;
  // Objects that define toJSON (Date) say themselves what they become.
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return true;
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        if (!(i in value) || !jsonFaithful(value[i], seen)) return false;
      }
      return true;
    }
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return false;
    return Object.values(value).every((child) => jsonFaithful(child, seen));
  } finally {
    seen.delete(value);
  }
}

/** Everything fast-check can make, including what JSON would silently change. */
const payloads = fc.anything({
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withSparseArray: true,
  withTypedArray: true,
  withUnicodeString: true,
  maxDepth: 4,
});

/** An option left out most of the time, else a good value, now and then a hostile one. */
function option<T, U>(good: fc.Arbitrary<T>, hostile: fc.Arbitrary<U>): fc.Arbitrary<T | U | undefined> {
  return fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 6 },
    { arbitrary: good, weight: 3 },
    { arbitrary: hostile, weight: 1 },
  );
}

/** Each option left out, valid or hostile, and now and then a key that is no option at all. */
const options = fc
  .record({
    delay: option(
      fc.oneof(fc.integer({ min: 0, max: 10_000_000 }), fc.constantFrom('30m', '1.5s', '2h')),
      fc.constantFrom('', '-5s', '5 parsecs', 'NaN', -1, 0.5, Number.POSITIVE_INFINITY),
    ),
    at: option(
      fc.oneof(fc.integer({ min: 0, max: 8.64e15 }), fc.date({ min: new Date(0), max: new Date(8.64e15) })),
      fc.constantFrom(-1, 1.5, Number.NaN, '2026-01-01', new Date(Number.NaN)),
    ),
    id: option(fc.string({ minLength: 1, maxLength: 40 }), fc.constantFrom('', 'x'.repeat(300), 'a\u0000b')),
    key: option(fc.string({ minLength: 1, maxLength: 40 }), fc.constantFrom('', 'k'.repeat(600))),
    priority: option(fc.integer({ min: 0, max: 1_000_000 }), fc.constantFrom(-1, 1_000_001, 2.5, '3')),
    maxAttempts: option(fc.integer({ min: 1, max: 100 }), fc.constantFrom(0, -2, 1.5, '3', null)),
    backoff: option(
      fc.oneof(
        fc.record({
          type: fc.constantFrom('fixed', 'exponential'),
          delay: fc.integer({ min: 0, max: 60_000 }),
        }),
        fc.array(fc.integer({ min: 0, max: 60_000 }), { minLength: 1, maxLength: 5 }),
      ),
      fc.constantFrom('fast', 0, {}, { type: 'sideways', delay: 5 }, [-5]),
    ),
    timeout: option(
      fc.oneof(fc.integer({ min: 1, max: 600_000 }), fc.constantFrom('30s', '5m')),
      fc.constantFrom(0, -5, 'soon'),
    ),
    keepCompleted: option(
      fc.oneof(fc.boolean(), fc.record({ count: fc.integer({ min: 1, max: 100 }) })),
      fc.constantFrom('yes', 3, { count: -1 }, { lots: true }),
    ),
    colour: option(fc.constant(undefined), fc.constant('blue')),
  })
  .map((record) => Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)));

async function stored(queue: Queue): Promise<number> {
  return (await keysOf(queue)).length;
}

describe('hostile input', () => {
  const t = useQueues();

  it('stores any payload exactly as JSON carries it, or refuses it with one line and stores nothing', async () => {
    const queue = t.queue();
    const seen = { accepted: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(payloads, async (data) => {
        // No data at all is stored as null, as add('type') documents.
        const faithful = jsonFaithful(data === undefined ? null : data);
        const before = await stored(queue);
        let id: string;
        try {
          id = await queue.add('fuzz', data, { delay: 3_600_000 });
        } catch (error) {
          expect(error).toBeInstanceOf(DueqError);
          expect((error as Error).message).not.toContain('\n');
          expect(faithful, `refused a faithful payload: ${(error as Error).message}`).toBe(false);
          expect(await stored(queue)).toBe(before);
          seen.refused++;
          return;
        }
        seen.accepted++;
        expect(faithful, 'accepted a payload JSON would change').toBe(true);
        const job = await queue.getJob(id);
        expect(job?.data).toEqual(JSON.parse(JSON.stringify(data === undefined ? null : data)));
        await queue.cancel(id);
      }),
      { numRuns: 300 },
    );
    // Both sides of the property were exercised.
    expect(seen.accepted).toBeGreaterThan(20);
    expect(seen.refused).toBeGreaterThan(20);
  });

  it('takes any mix of options as asked, or refuses it with one line and stores nothing', async () => {
    const queue = t.queue();
    const seen = { accepted: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(options, async (opts) => {
        const before = await stored(queue);
        let id: string;
        try {
          id = await queue.add('fuzz', { n: 1 }, opts as JobOptions);
        } catch (error) {
          expect(error).toBeInstanceOf(DueqError);
          expect((error as Error).message).not.toContain('\n');
          expect(await stored(queue)).toBe(before);
          seen.refused++;
          return;
        }
        seen.accepted++;
        // Accepted: every option it carried was a real one, and the job shows them.
        expect(opts).not.toHaveProperty('colour');
        const o = opts as JobOptions;
        const job = await queue.getJob(id);
        expect(job).not.toBeNull();
        if (o.id !== undefined) expect(id).toBe(o.id);
        if (o.priority !== undefined) expect(job?.priority).toBe(o.priority);
        if (o.maxAttempts !== undefined) expect(job?.maxAttempts).toBe(o.maxAttempts);
        if (typeof o.at === 'number') expect(job?.dueAt).toBe(o.at);
        if (o.at instanceof Date) expect(job?.dueAt).toBe(o.at.getTime());
        await queue.cancel(id);
      }),
      { numRuns: 300 },
    );
    // Both sides of the property were exercised.
    expect(seen.accepted).toBeGreaterThan(20);
    expect(seen.refused).toBeGreaterThan(20);
  });

  it('runs on through damaged jobs: each lands in dead with its reason, or doctor --repair fixes it', async () => {
    const queue = t.queue();
    await queue.pause();
    const hash = (id: string) => queue.keys.jobPrefix + id;
    const good = await queue.addBulk(Array.from({ length: 20 }, (_, i) => ({ type: 'ok', data: { i } })));
    const damaged = {
      noData: await queue.add('ok', { d: 1 }),
      badData: await queue.add('ok', { d: 2 }),
      noType: await queue.add('ok', { d: 3 }),
      unknownState: await queue.add('ok', { d: 4 }),
      fieldsMissing: await queue.add('ok', { d: 5 }),
      orphan: await queue.add('ok', { d: 6 }),
    };
    await queue.client.hdel(hash(damaged.noData), 'data');
    await queue.client.hset(hash(damaged.badData), 'data', '{"oops":');
    await queue.client.hdel(hash(damaged.noType), 'type');
    await queue.client.hset(hash(damaged.unknownState), 'state', 'limbo');
    await queue.client.hdel(
      hash(damaged.fieldsMissing),
      'attempt',
      'maxAttempts',
      'backoff',
      'createdAt',
      'dueAt',
    );
    await queue.client.lrem(queue.keys.ready, 0, damaged.orphan);
    // An id in two structures, and an id with no job at all.
    const twice = await queue.add('ok', { d: 7 }, { delay: 60_000 });
    await queue.client.rpush(queue.keys.ready, twice, 'no-such-job');

    const ran: unknown[] = [];
    t.worker(queue, { ok: async (job) => void ran.push(job.data) });
    await queue.resume();
    await expect.poll(async () => (await queue.counts()).dead, { timeout: 5_000 }).toBe(3);
    const reason = async (id: string) => (await queue.getJob(id))?.errors[0]?.message;
    expect(await reason(damaged.noData)).toBe(`Job "${damaged.noData}" has data that is not valid JSON`);
    expect(await reason(damaged.badData)).toBe(`Job "${damaged.badData}" has data that is not valid JSON`);
    expect(await reason(damaged.noType)).toBe(`Job "${damaged.noType}" has no type: its hash is damaged`);
    // The good jobs, the one in an unknown state and the one missing its counters all ran.
    await expect.poll(() => ran.length).toBe(22);
    expect(ran).toEqual(expect.arrayContaining([...good.map((_, i) => ({ i })), { d: 4 }, { d: 5 }]));
    // The delayed job was not run early from its stray ready entry.
    expect((await queue.getJob(twice))?.state).toBe('delayed');

    // What the worker could not meet, doctor finds and repairs: the orphan runs.
    const found = await queue.doctor({ repair: true });
    expect(found.problems.map((p) => [p.kind, p.id])).toEqual(
      expect.arrayContaining([['orphan-job', damaged.orphan]]),
    );
    await expect.poll(() => ran).toContainEqual({ d: 6 });
    // The worker still takes new work.
    await queue.add('ok', { after: true });
    await expect.poll(() => ran).toContainEqual({ after: true });
    for (const id of [damaged.noData, damaged.badData, damaged.noType]) await queue.dead.remove(id);
    await queue.cancel(twice);
  });
});
