import { readFileSync } from 'node:fs';
import { Queue, Scheduler, Worker } from '../../src/index.js';
import type { BenchJob, System } from './types.js';

const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export const dueq: System = {
  key: 'dueq',
  name: 'dueq',
  version,
  async producer(url, name) {
    const queue = new Queue(name, { connection: url });
    // Every producer is connected before a workload's clock starts (BullMQ and bee-queue alike).
    await queue.waitUntilReady();
    return {
      async addBulk(jobs) {
        await queue.addBulk(
          jobs.map((j) => ({ type: 'bench', data: j.data, opts: j.delayMs > 0 ? { delay: j.delayMs } : {} })),
        );
      },
      async add(data, delayMs) {
        await queue.add('bench', data, delayMs > 0 ? { delay: delayMs } : undefined);
      },
      close: () => queue.close(),
    };
  },
  async consumer(url, name, concurrency, handle) {
    const worker = new Worker(
      name,
      { bench: async (job) => handle(job.data as BenchJob, job.dueAt) },
      { connection: url, concurrency },
    );
    // A Scheduler beside the workers, as a deployment runs one (dueq start does).
    const scheduler = new Scheduler(name, { connection: url });
    await scheduler.start();
    await worker.waitUntilReady();
    return {
      async close() {
        await worker.close();
        await scheduler.close();
      },
    };
  },
};
