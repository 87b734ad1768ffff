/**
 * W2 (c64) with one worker, for `node --cpu-prof`: where the worker's process spends its time,
 * and how busy Redis and this process were (CPU time per job, from INFO cpu and process.cpuUsage).
 */
import { Redis } from 'ioredis';
import { Queue, Worker } from '../src/index.js';
import { RedisServer } from '../test/support/redis-server.js';

const N = 20_000;
const server = await RedisServer.start();
const admin = new Redis(server.url);
const queue = new Queue('prof', { connection: server.url });

async function redisCpuUs(): Promise<number> {
  const info = await admin.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1e6;
}

for (let round = 0; round < 4; round++) {
  await queue.addBulk(Array.from({ length: N }, (_, i) => ({ type: 'x', data: { i } })));
  let n = 0;
  let done!: () => void;
  const finished = new Promise<void>((r) => {
    done = r;
  });
  const redisBefore = await redisCpuUs();
  const nodeBefore = process.cpuUsage();
  const t = performance.now();
  const worker = new Worker(queue, { x: async () => void (++n === N && done()) }, { concurrency: 64 });
  await finished;
  const wall = performance.now() - t;
  const node = process.cpuUsage(nodeBefore);
  const redis = (await redisCpuUs()) - redisBefore;
  console.log(
    `round ${round}: ${((N / wall) * 1000).toFixed(0)} jobs/s; per job: wall ${((wall * 1000) / N).toFixed(1)} µs, ` +
      `Redis CPU ${(redis / N).toFixed(1)} µs, worker CPU ${((node.user + node.system) / N).toFixed(1)} µs`,
  );
  await worker.close();
}
await queue.close();
admin.disconnect();
await server.stop();
