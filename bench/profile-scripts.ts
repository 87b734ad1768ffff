/**
 * Where Redis spends its time: runs a workload with SLOWLOG recording every command, then prints
 * the count, total and mean µs of each script (by name). A development tool for the fast path:
 * `npx tsx bench/profile-scripts.ts [w1|w1s|w2|w4] [µs]`.
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { scriptSources } from '../src/scripts/loader.js';
import { RedisServer } from '../test/support/redis-server.js';
import { dueq } from './systems/dueq.js';
import { w1Bulk, w1Single, w2Drain, w4Burst } from './workloads.js';

const which = process.argv[2] ?? 'w2';
// A threshold in µs (third argument) keeps only the calls that held Redis that long: who stalls it.
const slowerThan = process.argv[3] ?? '0';
const server = await RedisServer.start([
  '--slowlog-log-slower-than',
  slowerThan,
  '--slowlog-max-len',
  '1000000',
]);
const admin = new Redis(server.url);
const names = new Map<string, string>();
for (const [name, lua] of scriptSources()) names.set(createHash('sha1').update(lua).digest('hex'), name);
await admin.slowlog('RESET');
const env = { url: server.url, system: dueq, admin };
const started = performance.now();
const outcome =
  which === 'w1'
    ? await w1Bulk(env, 50_000)
    : which === 'w1s'
      ? await w1Single(env, 50_000)
      : which === 'w4'
        ? await w4Burst(env, 20_000)
        : await w2Drain(env, 20_000, 64);
const wall = performance.now() - started;
const entries = (await admin.slowlog('GET', 1_000_000)) as [number, number, number, string[]][];
const byName = new Map<string, { n: number; us: number; max: number }>();
for (const [, , us, args] of entries) {
  const command = (args[0] ?? '').toLowerCase();
  const name = command === 'evalsha' ? (names.get(args[1] ?? '') ?? 'script?') : command;
  const s = byName.get(name) ?? { n: 0, us: 0, max: 0 };
  s.n++;
  s.us += us;
  s.max = Math.max(s.max, us);
  byName.set(name, s);
}
console.log(which, JSON.stringify(outcome), `wall ${wall.toFixed(0)} ms`);
const total = [...byName.values()].reduce((a, s) => a + s.us, 0);
console.log(
  `redis busy ${(total / 1000).toFixed(0)} ms (${((total / 1000 / wall) * 100).toFixed(0)}% of wall)`,
);
for (const [name, s] of [...byName.entries()].sort((a, b) => b[1].us - a[1].us).slice(0, 12)) {
  console.log(
    `${name.padEnd(14)} calls ${String(s.n).padStart(7)}  total ${(s.us / 1000).toFixed(1).padStart(7)} ms  mean ${(s.us / s.n).toFixed(1).padStart(7)} µs  max ${s.max} µs`,
  );
}
admin.disconnect();
await server.stop();
process.exit(0);
