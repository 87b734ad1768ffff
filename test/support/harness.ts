import { randomBytes } from 'node:crypto';
import { afterEach, expect, inject } from 'vitest';
import {
  type Handlers,
  Queue,
  type QueueOptions,
  Scheduler,
  type SchedulerOptions,
  Worker,
  type WorkerOptions,
} from '../../src/index.js';
import { scanKeys } from '../../src/redis/scan.js';

export function redisUrl(): string {
  return inject('redisUrl');
}

export function uniqueName(label = 'q'): string {
  return `${label}-${randomBytes(5).toString('hex')}`;
}

/**
 * Queues, workers and schedulers for one test, each on a queue name of its own. After every test
 * the workers and schedulers are closed, and every queue must pass `doctor`: each job in exactly
 * one state, no orphans (DESIGN §3.1).
 */
export function useQueues() {
  const queues: Queue[] = [];
  const closers: (() => Promise<void>)[] = [];

  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
    try {
      for (const queue of queues) {
        const report = await queue.doctor();
        expect(report.problems, `doctor on queue ${queue.name}`).toEqual([]);
      }
    } finally {
      await Promise.all(queues.splice(0).map((q) => q.close()));
    }
  });

  return {
    /** Something else to close when the test ends (before the queues are checked). */
    onClose(close: () => Promise<unknown>): void {
      closers.push(async () => {
        await close();
      });
    },
    queue(options: QueueOptions = {}): Queue {
      const queue = new Queue(uniqueName(), { connection: redisUrl(), ...options });
      queues.push(queue);
      return queue;
    },
    worker(queue: Queue, handlers: Handlers, options: WorkerOptions = {}): Worker {
      const worker = new Worker(queue, handlers, options);
      worker.on('error', () => {});
      closers.push(() => worker.close({ timeoutMs: 1_000 }));
      return worker;
    },
    scheduler(queue: Queue, options: SchedulerOptions = {}): Scheduler {
      const scheduler = new Scheduler(queue, options);
      scheduler.on('error', () => {});
      closers.push(() => scheduler.close());
      return scheduler;
    },
  };
}

/** A promise and its resolve, for waiting on events. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Every Redis key of a queue (to check that a refused call stored nothing). */
export async function keysOf(queue: Queue): Promise<string[]> {
  // A Cluster lists its nodes only once connected; any command waits for that.
  await queue.client.exists(queue.keys.meta);
  return (await scanKeys(queue.client, `${queue.keys.base}*`)).sort();
}
