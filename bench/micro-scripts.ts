/**
 * Redis time per job of the hot scripts, measured alone (INFO commandstats, no SLOWLOG overhead):
 * add, claim and complete of 20k jobs in batches. A development tool for the fast path:
 * `npx tsx bench/micro-scripts.ts`.
 */
import { Redis } from 'ioredis';
import { Queue } from '../src/index.js';
import { Store } from '../src/redis/store.js';
import { RedisServer } from '../test/support/redis-server.js';

const server = await RedisServer.start();
const admin = new Redis(server.url);
const queue = new Queue('micro', { connection: server.url });
const store = new Store(queue.client, queue.keys);

async function scriptUsec(): Promise<number> {
  const info = await admin.info('commandstats');
  let total = 0;
  for (const m of info.matchAll(/^cmdstat_(evalsha|eval):calls=\d+,usec=(\d+)/gm)) total += Number(m[2]);
  return total;
}

async function phase(name: string, jobs: number, run: () => Promise<void>): Promise<void> {
  const before = await scriptUsec();
  const t = performance.now();
  await run();
  const wall = performance.now() - t;
  const usec = (await scriptUsec()) - before;
  console.log(
    `${name.padEnd(22)} ${(usec / jobs).toFixed(2).padStart(6)} µs/job in Redis   ${((jobs / wall) * 1000).toFixed(0).padStart(7)} jobs/s wall`,
  );
}

const N = 20_000;
await phase('add (bulk, 250/call)', N, async () => {
  await queue.addBulk(Array.from({ length: N }, (_, i) => ({ type: 'x', data: { i } })));
});
const claimed: Awaited<ReturnType<Store['claim']>>['jobs'] = [];
let seq = 0;
await phase('claim (64/call)', N, async () => {
  while (claimed.length < N) claimed.push(...(await store.claim(64, 30_000, `w:${++seq}`)).jobs);
});
await phase('complete (64/call)', N, async () => {
  for (let i = 0; i < claimed.length; i += 64) await store.complete(claimed.slice(i, i + 64), []);
});
await phase('add (single)', 5_000, async () => {
  await Promise.all(Array.from({ length: 5_000 }, (_, i) => queue.add('x', { i })));
});
await phase('add delayed (bulk)', N, async () => {
  await queue.addBulk(
    Array.from({ length: N }, (_, i) => ({ type: 'x', data: { i }, opts: { delay: 60_000 + i } })),
  );
});
await queue.close();
admin.disconnect();
await server.stop();
