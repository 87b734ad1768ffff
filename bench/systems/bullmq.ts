import { createRequire } from 'node:module';
import { Queue, Worker } from 'bullmq';
import type { BenchJob, System } from './types.js';

const version = (createRequire(import.meta.url)('bullmq/package.json') as { version: string }).version;

function connection(url: string) {
  const { hostname, port } = new URL(url);
  return { host: hostname, port: Number(port), maxRetriesPerRequest: null };
}

/** BullMQ at its defaults, completed jobs removed (removeOnComplete). */
export const bullmq: System = {
  key: 'bullmq',
  name: 'BullMQ',
  version,
  async producer(url, name) {
    const queue = new Queue(name, { connection: connection(url) });
    await queue.waitUntilReady();
    const opts = (delayMs: number) => ({
      removeOnComplete: true,
      ...(delayMs > 0 ? { delay: delayMs } : {}),
    });
    return {
      async addBulk(jobs) {
        await queue.addBulk(jobs.map((j) => ({ name: 'bench', data: j.data, opts: opts(j.delayMs) })));
      },
      async add(data, delayMs) {
        await queue.add('bench', data, opts(delayMs));
      },
      close: () => queue.close(),
    };
  },
  async consumer(url, name, concurrency, handle) {
    // BullMQ counts a delay from the producer clock: due = timestamp + delay. Promotion sets the
    // job's `delay` to 0; the delay asked for stays in its options.
    const worker = new Worker(
      name,
      async (job) => handle(job.data as BenchJob, job.timestamp + (job.opts.delay ?? 0)),
      {
        connection: connection(url),
        concurrency,
      },
    );
    await worker.waitUntilReady();
    return { close: () => worker.close() };
  },
};
