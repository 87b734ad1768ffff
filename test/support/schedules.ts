import type { JobContext, Queue } from '../../src/index.js';
import type { useQueues } from './harness.js';

/** Redis's own clock, in ms: schedules fire by it, not by this process's. */
export async function redisNow(queue: Queue): Promise<number> {
  const [s, us] = await queue.client.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

/** The fire time in an occurrence's id: sched:<name>:<fire time>. */
export function fireTime(id: string): number {
  return Number(id.slice(id.lastIndexOf(':') + 1));
}

/** A worker (concurrency 8) that records every `tick` occurrence it runs. */
export function recorder(
  t: ReturnType<typeof useQueues>,
  queue: Queue,
  handle?: (job: JobContext) => Promise<unknown>,
) {
  const ran: { id: string; data: unknown; startedAt: number; dueAt: number }[] = [];
  t.worker(
    queue,
    {
      tick: async (job) => {
        ran.push({ id: job.id, data: job.data, startedAt: Date.now(), dueAt: job.dueAt });
        await handle?.(job);
      },
    },
    { concurrency: 8 },
  );
  return ran;
}
