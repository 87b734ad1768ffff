import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { Queue } from '../src/index.js';

const CLI = new URL('../dist/cli/index.js', import.meta.url).pathname;
const JOBS = new URL('./jobs/', import.meta.url).pathname;

/**
 * `dueq start` with `workers` worker processes of concurrency 64, resolved once every worker
 * process is connected (its blocking connection shows in CLIENT LIST: the log, at warn level so
 * that job lines do not weigh on the figures, does not say it).
 */
async function supervisor(admin: Redis, url: string, queue: string, workers: number) {
  const child = spawn(
    process.execPath,
    [
      CLI,
      '--redis',
      url,
      'start',
      '--jobs',
      JOBS,
      '--queue',
      queue,
      '--workers',
      String(workers),
      '--concurrency',
      '64',
    ],
    {
      cwd: mkdtempSync(join(tmpdir(), 'dueq-bench-')),
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DUEQ_LOG_LEVEL: 'warn' },
    },
  );
  let exitCode: number | null | undefined;
  const exited = new Promise((resolve) =>
    child.once('exit', (code) => {
      exitCode = code;
      resolve(code);
    }),
  );
  const waiting = new RegExp(`name=dueq:worker:${queue}:\\S+:wait\\b`, 'g');
  for (;;) {
    if (exitCode !== undefined) throw new Error(`dueq start exited with ${exitCode}`);
    const list = (await admin.client('LIST')) as string;
    if ((list.match(waiting) ?? []).length >= workers) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function until(queue: Queue, total: number): Promise<number> {
  for (;;) {
    const { completed } = await queue.totals();
    if (completed >= total) return performance.now();
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * dueq across processes: `dueq start` with 1 and 2 worker processes (concurrency 64 each) on W2
 * and W3. The supervisor runs its log level at warn, so logging does not weigh on the figure.
 */
export async function scaleRows(
  url: string,
  admin: Redis,
  n: (count: number) => number,
): Promise<string[][]> {
  const rows: string[][] = [];
  for (const workers of [1, 2]) {
    const drainTotal = n(20_000);
    const q2 = new Queue(`scale-w2-${workers}`, { connection: url });
    await q2.pause();
    await q2.addBulk(Array.from({ length: drainTotal }, (_, i) => ({ type: 'bench', data: { i } })));
    const s2 = await supervisor(admin, url, q2.name, workers);
    const t2 = performance.now();
    await q2.resume();
    const d2 = (await until(q2, drainTotal)) - t2;
    await s2.stop();
    await q2.close();
    await admin.flushall();

    const total = n(50_000);
    const q3 = new Queue(`scale-w3-${workers}`, { connection: url });
    const s3 = await supervisor(admin, url, q3.name, workers);
    const t3 = performance.now();
    let next = 0;
    const lane = async () => {
      while (next < total) {
        next++;
        await q3.add('bench', { i: next });
      }
    };
    await Promise.all(Array.from({ length: 64 }, lane));
    const d3 = (await until(q3, total)) - t3;
    await s3.stop();
    await q3.close();
    await admin.flushall();
    const rate = (count: number, ms: number) => Math.round(count / (ms / 1000)).toLocaleString('en-US');
    rows.push([
      `dueq start, ${workers} worker process${workers > 1 ? 'es' : ''} × c64: W2 drain / W3 (jobs/s)`,
      `${rate(drainTotal, d2)} / ${rate(total, d3)}`,
    ]);
  }
  return rows;
}
