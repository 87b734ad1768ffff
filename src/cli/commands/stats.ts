import { LIMITS } from '../../defaults.js';
import { listQueues } from '../../queue/discovery.js';
import { Queue, type QueueCounts, type QueueTotals } from '../../queue/queue.js';
import type { Client } from '../../redis/connection.js';
import { parseDuration } from '../../util/duration.js';
import { pc } from '../colors.js';
import { type Context, withRedis } from '../context.js';
import { table } from '../format.js';
import { CliError, EXIT } from '../output.js';

interface Sample {
  at: number;
  counts: QueueCounts;
  totals: QueueTotals;
}

export interface QueueStats extends QueueCounts {
  queue: string;
  totals: QueueTotals;
  /** Per second, over the sampling interval. */
  rates: { added: number; completed: number; failed: number; dead: number };
}

async function sample(client: Client, prefix: string, name: string): Promise<Sample> {
  const queue = new Queue(name, { connection: client, prefix });
  const [counts, totals] = await Promise.all([queue.counts(), queue.totals()]);
  await queue.close();
  return { at: performance.now(), counts, totals };
}

function rate(a: number, b: number, seconds: number): number {
  return Math.round(((b - a) / seconds) * 10) / 10;
}

function render(stats: QueueStats[], intervalMs: number): string {
  if (stats.length === 0) return 'no queues yet';
  const rows = stats.map((s) => [
    s.queue,
    s.delayed,
    s.ready,
    s.active,
    s.dead > 0 ? pc.red(String(s.dead)) : 0,
    s.done,
    s.rates.added,
    s.rates.completed,
    s.rates.failed > 0 ? pc.yellow(String(s.rates.failed)) : 0,
    s.paused ? pc.yellow('paused') : '',
  ]);
  return `${table(['queue', 'delayed', 'ready', 'active', 'dead', 'done', 'added/s', 'done/s', 'failed/s', ''], rows)}\n${pc.dim(`rates over ${intervalMs / 1000} s`)}`;
}

/** `dueq stats [queue] [--watch]`: counts, and rates measured over one interval. */
export async function statsCommand(
  ctx: Context,
  queueName: string | undefined,
  options: { watch?: boolean; interval: string },
): Promise<void> {
  const intervalMs = parseDuration('--interval', options.interval, LIMITS.delayMs);
  if (intervalMs < 100) throw new CliError('--interval must be at least 100ms', EXIT.usage);
  await withRedis(ctx, async (client) => {
    const names = queueName ? [queueName] : await listQueues(client, ctx.prefix);
    let previous = await Promise.all(names.map((n) => sample(client, ctx.prefix, n)));
    let stop = false;
    const onInt = () => {
      stop = true;
    };
    process.once('SIGINT', onInt);
    try {
      do {
        await new Promise((r) => setTimeout(r, intervalMs));
        const current = await Promise.all(names.map((n) => sample(client, ctx.prefix, n)));
        const stats: QueueStats[] = current.map((c, i) => {
          const p = previous[i] as Sample;
          const seconds = (c.at - p.at) / 1000;
          return {
            queue: names[i] as string,
            ...c.counts,
            totals: c.totals,
            rates: {
              added: rate(p.totals.added, c.totals.added, seconds),
              completed: rate(p.totals.completed, c.totals.completed, seconds),
              failed: rate(p.totals.failed, c.totals.failed, seconds),
              dead: rate(p.totals.dead, c.totals.dead, seconds),
            },
          };
        });
        previous = current;
        if (options.watch && !ctx.out.json && process.stdout.isTTY) process.stdout.write('\x1b[2J\x1b[H');
        ctx.out.result(queueName ? stats[0] : stats, () => render(stats, intervalMs));
      } while (options.watch && !stop);
    } finally {
      process.off('SIGINT', onInt);
    }
  });
}
