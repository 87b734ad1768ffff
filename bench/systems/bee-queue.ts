import { createRequire } from 'node:module';
import BeeQueue from 'bee-queue';
import type { BenchJob, System } from './types.js';

const require = createRequire(import.meta.url);
const version = (require('bee-queue/package.json') as { version: string }).version;

function redis(url: string) {
  const { hostname, port } = new URL(url);
  return { host: hostname, port: Number(port) };
}

function ready(queue: BeeQueue): Promise<void> {
  return new Promise((resolve) => queue.ready(() => resolve()));
}

/** bee-queue at its defaults, completed jobs removed (removeOnSuccess); delayed jobs need activateDelayedJobs. */
export const beeQueue: System = {
  key: 'bee-queue',
  name: 'bee-queue',
  version,
  async producer(url, name) {
    const queue = new BeeQueue(name, {
      redis: redis(url),
      isWorker: false,
      getEvents: false,
      sendEvents: false,
      removeOnSuccess: true,
    });
    await ready(queue);
    const job = (data: BenchJob, delayMs: number) => {
      const created = queue.createJob(data);
      if (delayMs > 0) created.delayUntil(Date.now() + delayMs);
      return created;
    };
    return {
      async addBulk(jobs) {
        const errors = await queue.saveAll(jobs.map((j) => job(j.data, j.delayMs)));
        if (errors.size > 0) throw [...errors.values()][0];
      },
      async add(data, delayMs) {
        await job(data, delayMs).save();
      },
      close: () => queue.close(),
    };
  },
  async consumer(url, name, concurrency, handle) {
    const queue = new BeeQueue(name, {
      redis: redis(url),
      activateDelayedJobs: true,
      removeOnSuccess: true,
      getEvents: false,
    });
    // bee-queue keeps a delayed job's due instant in options.delay, an immediate one's creation in options.timestamp.
    queue.process(
      concurrency,
      async (job: { data: BenchJob; options: { delay?: number; timestamp?: number } }) => {
        handle(job.data, job.options.delay ?? job.options.timestamp ?? job.data.dueAt);
      },
    );
    await ready(queue);
    return { close: () => queue.close() };
  },
};
