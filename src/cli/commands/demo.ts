import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startDashboard } from '../../dashboard/server.js';
import { Shop } from '../../demo/shop.js';
import { DemoView, type Snapshot } from '../../demo/view.js';
import { Queue } from '../../queue/queue.js';
import { clientFromUrl } from '../../redis/url.js';
import { Scheduler } from '../../scheduler/scheduler.js';
import { parseDuration } from '../../util/duration.js';
import { Worker } from '../../worker/worker.js';
import { type Context, redactUrl } from '../context.js';
import { EmbeddedRedis } from '../embedded-redis.js';
import { intOption } from '../parse.js';

const QUEUE = 'demo-orders';
/** After the last order, how long the demo waits for its jobs (the longest window is 10 s). */
const DRAIN_LIMIT_MS = 45_000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/**
 * `dueq demo`: the order-timeout story live, on an embedded redis-server of its own (fresh data
 * each run) unless --redis names one. Ends on its own, or on Ctrl-C, with a summary.
 */
export async function demoCommand(
  ctx: Context,
  options: { duration: string; ordersPerSecond: string },
): Promise<void> {
  const durationMs = parseDuration('--duration', options.duration, 3_600_000);
  const rate = intOption('--orders-per-second', options.ordersPerSecond, 1, 100);
  const view = new DemoView(process.stdout.isTTY === true && !ctx.out.json);

  let redisUrl = ctx.redisOption;
  let embedded: EmbeddedRedis | undefined;
  if (!redisUrl) {
    const dataDir = join(ctx.dataDir, 'demo');
    rmSync(dataDir, { recursive: true, force: true });
    embedded = await EmbeddedRedis.start(dataDir);
    redisUrl = embedded.url;
    ctx.out.note(
      `started an embedded redis-server on ${redisUrl} (pid ${embedded.pid}, AOF on, data in ${embedded.dir})`,
    );
  } else {
    // A Redis of the user's: start from an empty demo queue, touching nothing else.
    const client = clientFromUrl(redisUrl, { maxRetriesPerRequest: 1 });
    const keys = await client.keys(`${ctx.prefix}:{${QUEUE}}:*`);
    if (keys.length > 0) await client.del(...keys);
    client.disconnect();
  }

  const queue = new Queue(QUEUE, { connection: redisUrl, prefix: ctx.prefix });
  const lateness: number[] = [];
  const deadReasons: string[] = [];
  const shop = new Shop(queue, {
    event: (text, kind) => view.event(text, kind),
    lateness: (ms) => lateness.push(ms),
  });
  const scheduler = new Scheduler(queue);
  const worker = new Worker(queue, shop.jobs, { concurrency: 32 });
  worker.on('retrying', (job, error) =>
    view.event(
      `${job.type} attempt ${job.attempt} failed (${error.message}); retrying in ${Math.max(0, job.dueAt - Date.now())} ms`,
      'warn',
    ),
  );
  worker.on('dead', (job, error) => {
    const reason = `${job.type} of order ${(job.data as { orderId: number }).orderId} after ${job.attempt} attempts: ${error.message}`;
    deadReasons.push(reason);
    view.event(`dead: ${reason}`, 'bad');
  });
  worker.on('error', (error) => view.event(`worker: ${error.message}`, 'bad'));
  scheduler.on('error', (error) => view.event(`scheduler: ${error.message}`, 'bad'));
  await scheduler.start();
  await worker.waitUntilReady();
  // The dashboard, on 7070 if it is free: watch the story there too.
  const dashboard = await startDashboard({ redisUrl, prefix: ctx.prefix, port: 7070 }).catch(() =>
    startDashboard({ redisUrl: redisUrl as string, prefix: ctx.prefix, port: 0 }),
  );
  ctx.out.note(`dashboard: ${dashboard.url}#/queue/${QUEUE}`);

  let interrupted = false;
  const onInt = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
  };
  process.on('SIGINT', onInt);

  const started = performance.now();
  let phase: Snapshot['phase'] = 'ordering';
  const snapshot = async (): Promise<Snapshot> => {
    const counts = await queue.counts();
    const totals = await queue.totals();
    const sorted = [...lateness].sort((a, b) => a - b);
    const c = shop.counters;
    return {
      elapsedMs: performance.now() - started,
      durationMs,
      phase,
      redis: `${embedded ? 'embedded ' : ''}redis ${redactUrl(redisUrl as string)}`,
      counts,
      orders: { created: c.created, paid: c.paid, closed: c.closed, open: c.created - c.paid - c.closed },
      retried: totals.retried,
      stockReleased: c.stockReleased,
      lateness: sorted.length
        ? { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? 0 }
        : undefined,
    };
  };
  const redraw = setInterval(() => {
    snapshot().then(
      (s) => view.render(s),
      () => {},
    );
  }, 250);

  try {
    while (!interrupted && performance.now() - started < durationMs) {
      await shop.placeOrder();
      await new Promise((r) => setTimeout(r, 1_000 / rate));
    }
    phase = 'draining';
    const drainStart = performance.now();
    for (;;) {
      const c = await queue.counts();
      if (
        interrupted ||
        c.delayed + c.ready + c.active === 0 ||
        performance.now() - drainStart > DRAIN_LIMIT_MS
      )
        break;
      await new Promise((r) => setTimeout(r, 200));
    }
    phase = 'done';
  } finally {
    clearInterval(redraw);
    process.off('SIGINT', onInt);
    const final = await snapshot();
    view.render(final);
    view.summary(final, deadReasons);
    await dashboard.close();
    await worker.close({ timeoutMs: 2_000 });
    await scheduler.close();
    await queue.close();
    await embedded?.stop();
  }
}
