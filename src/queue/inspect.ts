import { ValidationError } from '../errors.js';
import { decodeEntry, type StreamEvent } from '../events/queue-events.js';
import { aggregate, SERIES, SERIES_FIELDS, type Series } from '../events/series.js';
import { jobKey } from '../redis/keys.js';
import type { Store } from '../redis/store.js';
import { checkInteger } from '../util/checks.js';
import { describe } from '../util/describe.js';
import { type JobInfo, type JobState, jobInfoFromHash } from './job-info.js';

/**
 * Reads for people and tools (the CLI, the dashboard, metrics): job lists by state, recent events,
 * chart series. Read only, and paged, so a large queue is never read whole.
 */

const LISTABLE: readonly JobState[] = ['delayed', 'ready', 'active', 'dead', 'done'];

export function checkState(state: unknown): JobState {
  if (!LISTABLE.includes(state as JobState)) {
    throw new ValidationError(`Expected a job state (${LISTABLE.join(', ')}), got ${describe(state)}`);
  }
  return state as JobState;
}

export function checkPage(
  options: { offset?: number; limit?: number },
  maxLimit = 1_000,
): { offset: number; limit: number } {
  return {
    offset: checkInteger('offset', options.offset ?? 0, 0, Number.MAX_SAFE_INTEGER),
    limit: checkInteger('limit', options.limit ?? 50, 1, maxLimit),
  };
}

async function idsIn(store: Store, state: JobState, offset: number, limit: number): Promise<string[]> {
  const { client, keys } = store;
  const end = String(offset + limit - 1);
  switch (state) {
    case 'delayed':
      return client.zrange(keys.delayed, String(offset), end);
    case 'active':
      return client.zrange(keys.active, String(offset), end);
    case 'dead':
      return client.zrevrange(keys.dead, offset, offset + limit - 1);
    case 'done':
      return client.zrevrange(keys.done, offset, offset + limit - 1);
    case 'ready': {
      // Claim order: the priority set first, then the list.
      const prio = await client.zrange(keys.prio, String(offset), end);
      if (prio.length === limit) return prio;
      const prioCount = await client.zcard(keys.prio);
      const listOffset = Math.max(offset - prioCount, 0);
      const list = await client.lrange(keys.ready, listOffset, listOffset + (limit - prio.length) - 1);
      return [...prio, ...list];
    }
  }
}

/** One page of jobs in a state: delayed soonest first, ready in claim order, dead and done newest first. */
export async function listJobs(
  store: Store,
  state: JobState,
  offset: number,
  limit: number,
): Promise<JobInfo[]> {
  const ids = await idsIn(store, state, offset, limit);
  if (ids.length === 0) return [];
  const pipeline = store.client.pipeline();
  for (const id of ids) pipeline.hgetall(jobKey(store.keys, id));
  const replies = (await pipeline.exec()) ?? [];
  const jobs: JobInfo[] = [];
  ids.forEach((id, i) => {
    const hash = replies[i]?.[1] as Record<string, string> | undefined;
    if (hash && Object.keys(hash).length > 0) jobs.push(jobInfoFromHash(id, hash));
  });
  return jobs;
}

/** The newest entries of the event stream, newest first. */
export async function recentEvents(store: Store, count: number): Promise<StreamEvent[]> {
  const entries = (await store.client.xrevrange(store.keys.events, '+', '-', 'COUNT', count)) as [
    string,
    string[],
  ][];
  return entries.map(([id, fields]) => decodeEntry(id, fields));
}

/** Throughput and lateness over the last `rangeMs`, in steps of `stepMs`, from the chart buckets. */
export async function readSeries(store: Store, rangeMs: number, stepMs: number): Promise<Series> {
  const [seconds, micros] = await store.client.time();
  const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  const last = now - (now % SERIES.bucketMs);
  const buckets: number[] = [];
  for (let b = last - rangeMs + SERIES.bucketMs; b <= last; b += SERIES.bucketMs) buckets.push(b);
  const fields = buckets.flatMap((b) => SERIES_FIELDS.map((f) => `${b}|${f}`));
  const values = fields.length > 0 ? await store.client.hmget(store.keys.series, ...fields) : [];
  return aggregate(buckets, values, stepMs);
}

export function checkSeriesOptions(options: { rangeMs?: number; stepMs?: number }): {
  rangeMs: number;
  stepMs: number;
} {
  const rangeMs = checkInteger(
    'rangeMs',
    options.rangeMs ?? 15 * 60_000,
    SERIES.bucketMs,
    SERIES.retentionMs,
  );
  const stepMs = checkInteger('stepMs', options.stepMs ?? SERIES.bucketMs, SERIES.bucketMs, rangeMs);
  if (stepMs % SERIES.bucketMs !== 0) {
    throw new ValidationError(`Expected \`stepMs\` to be a multiple of ${SERIES.bucketMs}, got ${stepMs}`);
  }
  return { rangeMs, stepMs };
}
