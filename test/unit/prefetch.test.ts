import { describe, expect, it } from 'vitest';
import type { ClaimedJob } from '../../src/redis/store.js';
import { PrefetchBuffer } from '../../src/worker/prefetch.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const job = (id: string) => ({ id }) as ClaimedJob;

describe('PrefetchBuffer', () => {
  it('takes nothing ahead until the worker finishes jobs, then as many as it finished', () => {
    const buffer = new PrefetchBuffer(8, 500, () => {});
    expect(buffer.room()).toBe(0);
    for (let i = 0; i < 3; i++) buffer.noteFinished();
    expect(buffer.room()).toBe(3);
    buffer.push(job('a'));
    expect(buffer.room()).toBe(2);
    for (let i = 0; i < 20; i++) buffer.noteFinished();
    expect(buffer.room()).toBe(7);
    buffer.drain();
  });

  it('forgets the pace of a worker that stopped finishing jobs', async () => {
    const buffer = new PrefetchBuffer(8, 500, () => {});
    for (let i = 0; i < 5; i++) buffer.noteFinished();
    expect(buffer.room()).toBe(5);
    await sleep(250);
    expect(buffer.room()).toBe(0);
  });

  it('hands back, oldest first, the jobs that waited longer than the hold time', async () => {
    const expired: string[][] = [];
    const buffer = new PrefetchBuffer(8, 100, (jobs) => expired.push(jobs.map((j) => j.id)));
    buffer.push(job('a'));
    await sleep(60);
    buffer.push(job('b'));
    await sleep(60);
    expect(expired).toEqual([['a']]);
    expect(buffer.jobs().map((j) => j.id)).toEqual(['b']);
    await sleep(80);
    expect(expired).toEqual([['a'], ['b']]);
    expect(buffer.size).toBe(0);
  });

  it('gives up a cancelled job and keeps the others in order', () => {
    const buffer = new PrefetchBuffer(8, 500, () => {});
    for (const id of ['a', 'b', 'c']) buffer.push(job(id));
    expect(buffer.remove('b')?.id).toBe('b');
    expect(buffer.remove('x')).toBeUndefined();
    expect(buffer.shift()?.id).toBe('a');
    expect(buffer.drain().map((j) => j.id)).toEqual(['c']);
  });
});
