import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Redis } from 'ioredis';
import type { BenchJob, Producer, System } from './systems/types.js';
import { summary, Tracker } from './tracker.js';

/**
 * The workloads of the side-by-side benchmark (issue 6), the same for every library. Each takes
 * a fresh queue name, checks that every job ran exactly once, and gives up after a time limit
 * rather than hang (a library that cannot finish gets no figure).
 */

export interface Env {
  url: string;
  system: System;
  admin: Redis;
}

export interface Outcome {
  /** Jobs per second, for throughput workloads. */
  rate?: number;
  lateness?: { p50: number; p99: number; max: number };
  /** ms from the common due instant to the last job's start (W4). */
  lastMs?: number;
  /** Round trip of a PING on another connection during the burst (W6). */
  ping?: { p50: number; p99: number; max: number };
  duplicates: number;
  missing: number;
  error?: string;
}

const LIMIT_MS = 180_000;

function queueName(env: Env, workload: string): string {
  return `${env.system.name}-${workload}-${randomBytes(3).toString('hex')}`.replace(/[^A-Za-z0-9._:-]/g, '');
}

async function within<T>(what: string, promise: Promise<T>, ms = LIMIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: no result within ${ms / 1000} s`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function jobs(n: number, delay: (i: number) => number): { data: BenchJob; delayMs: number }[] {
  const now = Date.now();
  return Array.from({ length: n }, (_, i) => {
    const delayMs = delay(i);
    return { data: { i, dueAt: now + delayMs }, delayMs };
  });
}

/** Adds in slices, so a library's bulk call is not asked for 50k jobs in one piece. */
async function addInSlices(
  env: Env,
  queue: string,
  all: { data: BenchJob; delayMs: number }[],
  slice = 1_000,
): Promise<void> {
  const producer = await env.system.producer(env.url, queue);
  try {
    for (let i = 0; i < all.length; i += slice) await producer.addBulk(all.slice(i, i + slice));
  } finally {
    await producer.close();
  }
}

/** W1 bulk: 50k immediate jobs with the library's bulk add. */
export async function w1Bulk(env: Env, n: number): Promise<Outcome> {
  const queue = queueName(env, 'w1b');
  const all = jobs(n, () => 0);
  // One bulk call, as a user with 50k jobs at hand would make it: each library splits it as it
  // sees fit (dueq: script calls of 250 jobs, pipelined).
  const producer = await env.system.producer(env.url, queue);
  let rate: number;
  try {
    const started = performance.now();
    await within('W1 bulk', producer.addBulk(all));
    rate = n / ((performance.now() - started) / 1000);
  } finally {
    await producer.close();
  }
  const length = await countWaiting(env, queue);
  return { rate, duplicates: 0, missing: length >= n ? 0 : n - length };
}

/** Jobs 0 … n-1, due now, one add call each, `inFlight` of them at a time. */
async function addSingly(producer: Producer, n: number, inFlight: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < n) {
      const i = next++;
      await producer.add({ i, dueAt: Date.now() }, 0);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
}

/** W1 single: 50k immediate jobs, one add call each, 64 in flight. */
export async function w1Single(env: Env, n: number, inFlight = 64): Promise<Outcome> {
  const queue = queueName(env, 'w1s');
  const producer = await env.system.producer(env.url, queue);
  const started = performance.now();
  try {
    await within('W1 single', addSingly(producer, n, inFlight));
  } finally {
    await producer.close();
  }
  const rate = n / ((performance.now() - started) / 1000);
  const length = await countWaiting(env, queue);
  return { rate, duplicates: 0, missing: length >= n ? 0 : n - length };
}

/** How many jobs a library holds for a queue after W1: every job it stored, whatever its layout. */
async function countWaiting(env: Env, queue: string): Promise<number> {
  let most = 0;
  for (const type of ['list', 'zset'] as const) {
    let cursor = '0';
    do {
      const [next, keys] = await env.admin.scan(cursor, 'MATCH', `*${queue}*`, 'COUNT', 1000, 'TYPE', type);
      for (const key of keys) {
        most = Math.max(most, type === 'list' ? await env.admin.llen(key) : await env.admin.zcard(key));
      }
      cursor = next;
    } while (cursor !== '0');
  }
  return most;
}

/** W2: 20k ready no-op jobs, then one consumer at `concurrency` drains them. */
export async function w2Drain(env: Env, n: number, concurrency: number): Promise<Outcome> {
  const queue = queueName(env, `w2c${concurrency}`);
  await addInSlices(
    env,
    queue,
    jobs(n, () => 0),
  );
  const tracker = new Tracker(n);
  const consumer = await env.system.consumer(env.url, queue, concurrency, (d, dueAt) =>
    tracker.record(d.i, dueAt, false),
  );
  try {
    await within(`W2 c${concurrency}`, tracker.done);
    // From the first job's start to the last one's: the consumer's start-up is not the drain.
    const rate = tracker.drainRate;
    await new Promise((r) => setTimeout(r, 200));
    return { rate, ...tracker.check() };
  } finally {
    await consumer.close();
  }
}

/** Starts the consumer of W3 in its own process; resolves once it is consuming. */
function consumerProcess(env: Env, queue: string, concurrency: number, n: number) {
  const script = new URL('./consumer-process.ts', import.meta.url).pathname;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', script, env.system.key, env.url, queue, String(concurrency), String(n)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  let onReady!: () => void;
  const ready = new Promise<void>((resolve) => {
    onReady = resolve;
  });
  const result = new Promise<{ lastRunAt: number; duplicates: number; missing: number }>(
    (resolve, reject) => {
      lines.on('line', (line) => {
        if (line === 'ready') onReady();
        else if (line.startsWith('{')) resolve(JSON.parse(line));
      });
      child.once('exit', (code) => reject(new Error(`consumer process exited with ${code}`)));
    },
  );
  return { ready, result, kill: () => child.kill('SIGKILL') };
}

/** W3: a producer (single adds, 64 in flight) and a consumer (concurrency 64) in another process, together. */
export async function w3Together(env: Env, n: number): Promise<Outcome> {
  const queue = queueName(env, 'w3');
  const consumer = consumerProcess(env, queue, 64, n);
  try {
    await within('W3 consumer start', consumer.ready, 30_000);
    const producer = await env.system.producer(env.url, queue);
    const started = Tracker.now();
    await within('W3 produce', addSingly(producer, n, 64));
    await producer.close();
    const result = await within('W3 consume', consumer.result);
    return {
      rate: n / ((result.lastRunAt - started) / 1000),
      duplicates: result.duplicates,
      missing: result.missing,
    };
  } finally {
    consumer.kill();
  }
}

/** PINGs Redis every 2 ms on a connection of its own, until stopped: how much the queue holds Redis up. */
/** W6: PINGs every 2 ms from a process of its own (bench/pinger-process.ts). */
async function pinger(url: string) {
  const script = new URL('./pinger-process.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, ['--import', 'tsx', script, url], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  let onReady!: () => void;
  const ready = new Promise<void>((resolve) => {
    onReady = resolve;
  });
  const result = new Promise<{ p50: number; p99: number; max: number }>((resolve, reject) => {
    lines.on('line', (line) => {
      if (line === 'ready') onReady();
      else if (line.startsWith('{')) resolve(JSON.parse(line));
    });
    child.once('exit', (code) => reject(new Error(`pinger exited with ${code}`)));
  });
  await ready;
  return {
    stop() {
      child.stdin?.end();
      return result;
    },
  };
}

/** W4 (and W6 during it): 20k jobs all due at the same instant, a consumer (c64) running. */
export async function w4Burst(env: Env, n: number): Promise<Outcome> {
  const queue = queueName(env, 'w4');
  const tracker = new Tracker(n);
  const consumer = await env.system.consumer(env.url, queue, 64, (d, dueAt) =>
    tracker.record(d.i, dueAt, true),
  );
  try {
    const dueAt = Date.now() + 5_000;
    const producer = await env.system.producer(env.url, queue);
    for (let i = 0; i < n; i += 1_000) {
      const slice = Array.from({ length: Math.min(1_000, n - i) }, (_, k) => ({
        data: { i: i + k, dueAt },
        delayMs: dueAt - Date.now(),
      }));
      await producer.addBulk(slice);
    }
    await producer.close();
    if (Date.now() > dueAt - 500)
      return { duplicates: 0, missing: n, error: 'adding 20k jobs took longer than the 5 s lead' };
    const ping = await pinger(env.url);
    await new Promise((r) => setTimeout(r, Math.max(dueAt - Date.now() - 100, 0)));
    await within('W4', tracker.done);
    const pings = await ping.stop();
    await new Promise((r) => setTimeout(r, 200));
    return {
      lateness: summary(tracker.lateness),
      lastMs: tracker.lastRunAt - dueAt,
      ping: pings,
      ...tracker.check(),
    };
  } finally {
    await consumer.close();
  }
}

/** W5: 5k jobs with delays spread over 0.2–5 s, a consumer (c64) running: how late each starts. */
export async function w5Spread(env: Env, n: number): Promise<Outcome> {
  const queue = queueName(env, 'w5');
  const tracker = new Tracker(n);
  const consumer = await env.system.consumer(env.url, queue, 64, (d, dueAt) =>
    tracker.record(d.i, dueAt, true),
  );
  try {
    await addInSlices(
      env,
      queue,
      jobs(n, () => 200 + Math.floor(Math.random() * 4_800)),
    );
    await within('W5', tracker.done);
    await new Promise((r) => setTimeout(r, 200));
    return { lateness: summary(tracker.lateness), ...tracker.check() };
  } finally {
    await consumer.close();
  }
}
