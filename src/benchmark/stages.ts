import { randomBytes } from 'node:crypto';
import { Queue } from '../queue/queue.js';
import type { Client } from '../redis/connection.js';
import { scanKeys } from '../redis/scan.js';
import { Scheduler } from '../scheduler/scheduler.js';
import { Worker } from '../worker/worker.js';

/**
 * `dueq bench`: the three stages of a delayed queue measured one at a time, then together, on a
 * Redis of the user's (seed 002 §6): producing (adds), promoting (due jobs moved from `delayed`
 * to `ready`) and consuming (a worker draining `ready`). The slowest stage is the ceiling of the
 * whole chain; measuring only the consumer hides a slow promoter until the queue backs up.
 *
 * Each run uses a queue of its own, `dueq-bench-<random>`, and deletes its keys at the end.
 */

export interface BenchOptions {
  /** Jobs per stage. */
  jobs: number;
  /** The worker's concurrency. */
  concurrency: number;
  /** Adds in flight at once, as a busy web server makes them. */
  inFlight: number;
  prefix: string;
}

export type StageName = 'produce' | 'promote' | 'consume' | 'end-to-end';

export interface StageResult {
  stage: StageName;
  jobs: number;
  ms: number;
  jobsPerSecond: number;
  /** End to end only: handler start minus due time. */
  lateness?: { p50: number; p99: number; max: number };
}

export interface BenchReport {
  queue: string;
  stages: StageResult[];
  /** The slowest of produce, promote and consume: what the chain can sustain. */
  ceiling: { stage: StageName; jobsPerSecond: number };
}

/** Told how far a stage got, for a progress bar. */
export type Progress = (stage: StageName, done: number, total: number) => void;

/** Delay of the jobs the produce stage adds: far enough that none falls due while it runs. */
const PRODUCE_DELAY_MS = 3_600_000;
/** Lead of the promote stage's jobs: they all fall due this long after the add started. */
const PROMOTE_LEAD_MS = 2_000;
/**
 * End to end: each job is due up to this long after its add (i mod 100 ms), so every one passes
 * through `delayed` and promotion while the chain runs flat out.
 */
const SPREAD_MS = 100;

export async function runBenchmark(
  client: Client,
  options: BenchOptions,
  progress: Progress,
): Promise<BenchReport> {
  const name = `dueq-bench-${randomBytes(4).toString('hex')}`;
  const queue = new Queue(name, { connection: client, prefix: options.prefix });
  try {
    const produce = await produceStage(client, queue, options, progress);
    const promote = await promoteStage(client, queue, options, progress);
    const consume = await consumeStage(client, queue, options, progress);
    const endToEnd = await endToEndStage(client, queue, options, progress);
    const stages = [produce, promote, consume];
    const slowest = stages.reduce((a, b) => (b.jobsPerSecond < a.jobsPerSecond ? b : a));
    return {
      queue: name,
      stages: [...stages, endToEnd],
      ceiling: { stage: slowest.stage, jobsPerSecond: slowest.jobsPerSecond },
    };
  } finally {
    await deleteQueueKeys(client, queue.keys.base);
    await queue.close();
  }
}

function result(stage: StageName, jobs: number, ms: number): StageResult {
  return { stage, jobs, ms: Math.round(ms), jobsPerSecond: Math.round((jobs * 1000) / Math.max(ms, 1)) };
}

/** Adds `total` jobs, `inFlight` at a time, reporting progress; returns the time it took. */
async function addAll(
  queue: Queue,
  total: number,
  inFlight: number,
  delayOf: (i: number) => { delay?: number; at?: number },
  onProgress: (done: number) => void,
): Promise<number> {
  const started = performance.now();
  let next = 0;
  let done = 0;
  const lane = async () => {
    while (next < total) {
      const i = next++;
      await queue.add('bench', { i }, delayOf(i));
      if (++done % 500 === 0 || done === total) onProgress(done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, total) }, lane));
  return performance.now() - started;
}

/** Produce: adds of delayed jobs (nothing falls due), `inFlight` at a time. */
async function produceStage(
  client: Client,
  queue: Queue,
  o: BenchOptions,
  progress: Progress,
): Promise<StageResult> {
  const ms = await addAll(
    queue,
    o.jobs,
    o.inFlight,
    () => ({ delay: PRODUCE_DELAY_MS }),
    (done) => progress('produce', done, o.jobs),
  );
  await deleteQueueKeys(client, queue.keys.base);
  return result('produce', o.jobs, ms);
}

/**
 * Promote: jobs that all fall due at one instant, moved to `ready` by a Scheduler started once
 * they are due (the queue is paused, so no worker takes part).
 */
async function promoteStage(
  client: Client,
  queue: Queue,
  o: BenchOptions,
  progress: Progress,
): Promise<StageResult> {
  await queue.pause();
  const dueAt = Date.now() + PROMOTE_LEAD_MS;
  await queue.addBulk(
    Array.from({ length: o.jobs }, (_, i) => ({ type: 'bench', data: { i }, opts: { at: dueAt } })),
  );
  await sleep(Math.max(dueAt - Date.now(), 0) + 50);
  const scheduler = new Scheduler(queue.name, { connection: client, prefix: o.prefix });
  const started = performance.now();
  await scheduler.start();
  let ms = 0;
  try {
    for (;;) {
      const { ready } = await queue.counts();
      progress('promote', ready, o.jobs);
      if (ready >= o.jobs) break;
      await sleep(5);
    }
    ms = performance.now() - started;
  } finally {
    await scheduler.close();
  }
  return result('promote', o.jobs, ms);
}

/** Consume: one Worker drains the ready jobs the promote stage left, from its first job to its last. */
async function consumeStage(
  client: Client,
  queue: Queue,
  o: BenchOptions,
  progress: Progress,
): Promise<StageResult> {
  let done = 0;
  let first = 0;
  let last = 0;
  const all = deferred();
  const worker = new Worker(
    queue.name,
    {
      bench: async () => {
        const now = performance.now();
        if (first === 0) first = now;
        last = now;
        if (++done % 500 === 0 || done === o.jobs) progress('consume', done, o.jobs);
        if (done === o.jobs) all.resolve();
      },
    },
    { connection: client, prefix: o.prefix, concurrency: o.concurrency },
  );
  try {
    await queue.resume();
    await all.promise;
  } finally {
    await worker.close();
  }
  return result('consume', Math.max(o.jobs - 1, 1), last - first);
}

/**
 * End to end: a Scheduler and a Worker running while delayed jobs (due 0–99 ms after their add)
 * are added, `inFlight` at a time. From the first add to the last job's start; lateness is how
 * long after its due time each job started, with the whole chain under full load.
 */
async function endToEndStage(
  client: Client,
  queue: Queue,
  o: BenchOptions,
  progress: Progress,
): Promise<StageResult> {
  await deleteQueueKeys(client, queue.keys.base);
  const late: number[] = [];
  const all = deferred();
  let done = 0;
  let last = 0;
  const worker = new Worker(
    queue.name,
    {
      bench: async (job) => {
        // Date.now() against Redis-stamped due times: both clocks are the same machine's or
        // NTP-close; the figure is for reading, not for a guarantee.
        late.push(Math.max(Date.now() - job.dueAt, 0));
        last = performance.now();
        if (++done % 500 === 0 || done === o.jobs) progress('end-to-end', done, o.jobs);
        if (done === o.jobs) all.resolve();
      },
    },
    { connection: client, prefix: o.prefix, concurrency: o.concurrency },
  );
  const scheduler = new Scheduler(queue.name, { connection: client, prefix: o.prefix });
  await Promise.all([scheduler.start(), worker.waitUntilReady()]);
  const started = performance.now();
  try {
    await addAll(
      queue,
      o.jobs,
      o.inFlight,
      (i) => ({ delay: i % SPREAD_MS }),
      () => {},
    );
    await all.promise;
  } finally {
    await worker.close();
    await scheduler.close();
  }
  return { ...result('end-to-end', o.jobs, last - started), lateness: summarize(late) };
}

function summarize(values: number[]): { p50: number; p99: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0;
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? 0 };
}

/**
 * Deletes every key of one queue (they share its hash-tagged base, so one SCAN pattern finds
 * them): the jobs a stage left, and at the end the whole bench queue.
 */
async function deleteQueueKeys(client: Client, base: string): Promise<void> {
  const keys = await scanKeys(client, `${base}*`);
  // All in the queue's slot: one UNLINK per thousand works in a cluster too.
  for (let i = 0; i < keys.length; i += 1_000) await client.unlink(...keys.slice(i, i + 1_000));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
