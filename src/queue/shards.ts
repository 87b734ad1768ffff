import { JobNotFoundError, ValidationError } from '../errors.js';
import { checkInteger } from '../util/checks.js';
import type { DeadLetterQueue } from './dead-letters.js';
import type { DoctorReport } from './doctor.js';
import { checkPage } from './inspect.js';
import type { JobInfo } from './job-info.js';

/**
 * A sharded queue (`new Queue('orders', { shards: 4 })`) is N plain queues, `orders#0` …
 * `orders#3`, each with its own hash tag, so that in a Redis Cluster they land on different
 * masters and one hot queue is no longer one node's load. A job goes to the shard its dedup key
 * or id hashes to, so a dedup key and an id still name one job; a Worker or Scheduler given the
 * sharded Queue serves every shard.
 */

export const MAX_SHARDS = 64;

/** The `shards` option of a queue with this name: 1 when left out. */
export function checkShards(name: string, value: unknown): number {
  const count = value === undefined ? 1 : checkInteger('shards', value, 1, MAX_SHARDS);
  if (count > 1 && /#\d+$/.test(name)) {
    throw new ValidationError(`Queue "${name}" is itself a shard: it cannot have shards`);
  }
  return count;
}

export function shardName(name: string, index: number): string {
  return `${name}#${index}`;
}

/** FNV-1a of the text, mod n: stable across processes and versions. */
export function shardIndex(text: string, n: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % n;
}

/** One report for the whole queue: every shard's problems, jobs and repairs added up. */
export function mergeDoctorReports(reports: DoctorReport[]): DoctorReport {
  return {
    ok: reports.every((r) => r.ok),
    jobs: reports.reduce((n, r) => n + r.jobs, 0),
    problems: reports.flatMap((r) => r.problems),
    repaired: reports.reduce((n, r) => n + r.repaired, 0),
  };
}

/** The dead letters of every shard, as one. */
export function shardedDeadLetters(queueName: string, shards: () => DeadLetterQueue[]): DeadLetterQueue {
  return {
    async list(options = {}) {
      const { offset, limit } = checkPage(options);
      // Each shard's first offset+limit, merged newest first, then the page.
      const lists = await Promise.all(shards().map((d) => d.list({ offset: 0, limit: offset + limit })));
      const newest = (job: JobInfo) => job.finishedAt ?? 0;
      return lists
        .flat()
        .sort((a, b) => newest(b) - newest(a))
        .slice(offset, offset + limit);
    },
    async replay(options = {}) {
      let left = options.limit ?? 10;
      let moved = 0;
      for (const dead of shards()) {
        if (left <= 0) break;
        const n = await dead.replay({ limit: left });
        moved += n;
        left -= n;
      }
      return moved;
    },
    async remove(id) {
      for (const dead of shards()) {
        try {
          await dead.remove(id);
          return;
        } catch (error) {
          if (!(error instanceof JobNotFoundError)) throw error;
        }
      }
      throw new JobNotFoundError(queueName, id);
    },
    async purge() {
      const counts = await Promise.all(shards().map((d) => d.purge()));
      return counts.reduce((a, b) => a + b, 0);
    },
  };
}
