import type { BackoffOption } from '../queue/backoff.js';
import { decodeBackoff } from '../queue/backoff.js';
import type { CatchUp } from './plan.js';
import type { ScheduleRecord } from './spec.js';

/** A schedule as `queue.schedules()` returns it. Times are Redis time, ms since the epoch. */
export interface ScheduleInfo {
  name: string;
  cron?: string;
  tz?: string;
  /** Interval of an `every` schedule, ms. */
  everyMs?: number;
  type: string;
  data: unknown;
  opts: { priority: number; maxAttempts?: number; backoff?: BackoffOption; timeoutMs?: number };
  startAt?: number;
  endAt?: number;
  limit?: number;
  overlap: 'skip' | 'allow';
  catchUp: CatchUp;
  version: number;
  /** The next fire time that has no occurrence yet; absent when the schedule is done. */
  next?: number;
  /** Occurrences created so far. */
  count: number;
  /** Job id of the most recent occurrence. */
  lastJobId?: string;
  createdAt: number;
  updatedAt: number;
  done: boolean;
}

export function scheduleInfo(record: ScheduleRecord): ScheduleInfo {
  let data: unknown;
  try {
    data = JSON.parse(record.data);
  } catch {
    data = record.data;
  }
  const opts: ScheduleInfo['opts'] = { priority: record.job.priority };
  if (record.job.maxAttempts) opts.maxAttempts = Number(record.job.maxAttempts);
  if (record.job.backoff) opts.backoff = decodeBackoff(record.job.backoff);
  if (record.job.timeoutMs) opts.timeoutMs = Number(record.job.timeoutMs);
  const info: ScheduleInfo = {
    name: record.name,
    type: record.type,
    data,
    opts,
    overlap: record.overlap,
    catchUp: record.catchUp,
    version: record.version,
    count: record.count,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    done: record.done === true,
  };
  for (const field of ['cron', 'tz', 'everyMs', 'startAt', 'endAt', 'limit', 'next'] as const) {
    if (record[field] !== undefined) (info as unknown as Record<string, unknown>)[field] = record[field];
  }
  if (record.last) info.lastJobId = record.last;
  return info;
}
