import { JobNotFoundError, ValidationError } from '../../errors.js';
import type { JobOptions } from '../../queue/job-options.js';
import { pc } from '../colors.js';
import { type Context, withQueue } from '../context.js';
import { formatJob, formatTime, relative } from '../format.js';
import { CliError, EXIT } from '../output.js';
import { intOption, jsonArgument } from '../parse.js';

export interface AddOptions {
  delay?: string;
  at?: string;
  key?: string;
  id?: string;
  priority?: string;
  maxAttempts?: string;
  timeout?: string;
}

/** `dueq add <queue> <type> [json]`: the same checks as queue.add; a refused add stores nothing. */
export async function addCommand(
  ctx: Context,
  queueName: string,
  type: string,
  json: string | undefined,
  options: AddOptions,
): Promise<void> {
  const data = jsonArgument('the job data', json);
  const opts: JobOptions = {};
  if (options.delay !== undefined) opts.delay = options.delay;
  if (options.at !== undefined) {
    const at = new Date(options.at);
    if (Number.isNaN(at.getTime()))
      throw new ValidationError(
        `Expected \`--at\` to be an ISO date like 2026-12-01T02:00:00Z, got "${options.at}"`,
      );
    opts.at = at;
  }
  if (options.key !== undefined) opts.key = options.key;
  if (options.id !== undefined) opts.id = options.id;
  if (options.priority !== undefined) opts.priority = intOption('--priority', options.priority, 0, 1_000_000);
  if (options.maxAttempts !== undefined)
    opts.maxAttempts = intOption('--max-attempts', options.maxAttempts, 1, 1_000_000);
  if (options.timeout !== undefined) opts.timeout = options.timeout;
  await withQueue(ctx, queueName, async (queue) => {
    const id = await queue.add(type, data, opts);
    const job = await queue.getJob(id);
    const now = Date.now();
    ctx.out.result({ id, queue: queueName, state: job?.state, dueAt: job?.dueAt }, () =>
      job?.state === 'delayed'
        ? `added job ${pc.bold(id)} to ${queueName}: ${type}, due ${formatTime(job.dueAt)} (${relative(job.dueAt, now)})`
        : `added job ${pc.bold(id)} to ${queueName}: ${type}, ${job?.state ?? 'added'}`,
    );
  });
}

export async function showCommand(ctx: Context, queueName: string, id: string): Promise<void> {
  await withQueue(ctx, queueName, async (queue) => {
    const job = await queue.getJob(id);
    if (!job) throw new JobNotFoundError(queueName, id);
    ctx.out.result(job, () => formatJob(job, Date.now()));
  });
}

export async function cancelCommand(ctx: Context, queueName: string, id: string): Promise<void> {
  await withQueue(ctx, queueName, async (queue) => {
    const result = await queue.cancel(id);
    if (result === 'not-found')
      throw new CliError(`No job "${id}" in queue "${queueName}" (it may have run already)`, EXIT.notFound);
    if (result === 'finished') {
      const job = await queue.getJob(id);
      throw new CliError(
        `Job "${id}" is ${job?.state ?? 'finished'}: nothing to cancel${job?.state === 'dead' ? ' (remove it with `dueq dead remove`)' : ''}`,
        EXIT.conflict,
      );
    }
    ctx.out.result({ id, result }, () =>
      result === 'removed'
        ? `cancelled job ${id}: removed`
        : `cancelled job ${id}: it is running, its AbortSignal fired`,
    );
  });
}

export async function runNowCommand(ctx: Context, queueName: string, id: string): Promise<void> {
  await withQueue(ctx, queueName, async (queue) => {
    await queue.runNow(id);
    ctx.out.result({ id, state: 'ready' }, () => `job ${id} is ready to run now`);
  });
}
