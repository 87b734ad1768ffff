/**
 * The first benchmark (a benchmark, not a test): on a redis-server of its own,
 *  1. drain: 20,000 ready no-op jobs, one Worker at concurrency 64 → jobs/s;
 *  2. lateness: 5,000 jobs with delays spread over 0.2–5 s → handler start − due time, p50/p99/max.
 * Redis runs on this machine, so its clock and the local wall clock agree; the handler reads the
 * wall clock as timeOrigin + performance.now() for sub-millisecond resolution.
 */
import { Queue, Worker } from '../src/index.js';
import { RedisServer } from '../test/support/redis-server.js';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function drain(url: string, jobs: number, concurrency: number): Promise<number> {
  const queue = new Queue(`bench-drain-${Date.now()}`, { connection: url });
  const batch = Array.from({ length: jobs }, (_, i) => ({ type: 'noop', data: { i } }));
  await queue.addBulk(batch);
  let done = 0;
  let finish!: () => void;
  const finished = new Promise<void>((r) => {
    finish = r;
  });
  const start = performance.now();
  const worker = new Worker(
    queue,
    {
      noop: async () => {
        if (++done === jobs) finish();
      },
    },
    { concurrency },
  );
  await finished;
  const elapsed = performance.now() - start;
  await worker.close();
  const counts = await queue.counts();
  if (counts.done !== jobs || counts.ready + counts.active !== 0)
    throw new Error(`drain: unexpected counts ${JSON.stringify(counts)}`);
  await queue.close();
  return (jobs / elapsed) * 1000;
}

async function lateness(url: string, jobs: number): Promise<number[]> {
  const queue = new Queue(`bench-late-${Date.now()}`, { connection: url });
  const late: number[] = [];
  let finish!: () => void;
  const finished = new Promise<void>((r) => {
    finish = r;
  });
  const worker = new Worker(
    queue,
    {
      tick: async (job) => {
        late.push(performance.timeOrigin + performance.now() - job.dueAt);
        if (late.length === jobs) finish();
      },
    },
    { concurrency: 64 },
  );
  await worker.waitUntilReady();
  const batch = Array.from({ length: jobs }, (_, i) => ({
    type: 'tick',
    data: { i },
    opts: { delay: 200 + Math.floor(Math.random() * 4_800) },
  }));
  await queue.addBulk(batch);
  await finished;
  await worker.close();
  await queue.close();
  return late.sort((a, b) => a - b);
}

async function main(): Promise<void> {
  const server = await RedisServer.start();
  try {
    const rate = await drain(server.url, 20_000, 64);
    const late = await lateness(server.url, 5_000);
    console.log(
      `drain   20,000 ready no-op jobs, 1 worker, concurrency 64: ${Math.round(rate).toLocaleString('en-US')} jobs/s`,
    );
    const ms = (v: number | undefined) => `${(v ?? Number.NaN).toFixed(1)} ms`;
    console.log(
      `lateness 5,000 jobs over 0.2–5 s: p50 ${ms(percentile(late, 50))}, p99 ${ms(percentile(late, 99))}, max ${ms(late[late.length - 1])}`,
    );
  } finally {
    await server.stop();
  }
}

await main();
