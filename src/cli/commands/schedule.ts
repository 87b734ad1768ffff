import { ValidationError } from '../../errors.js';
import type { ScheduleInfo } from '../../schedules/info.js';
import type { ScheduleOptions } from '../../schedules/spec.js';
import { pc } from '../colors.js';
import { type Context, withQueue } from '../context.js';
import { formatDuration, formatTime, relative, table } from '../format.js';
import { CliError, EXIT } from '../output.js';
import { intOption, jsonArgument } from '../parse.js';

export interface ScheduleSetOptions {
  cron?: string;
  every?: string;
  tz?: string;
  type?: string;
  data?: string;
  overlap?: string;
  catchUp?: string;
  limit?: string;
  startAt?: string;
  endAt?: string;
  priority?: string;
  maxAttempts?: string;
  timeout?: string;
}

function when(s: ScheduleInfo): string {
  if (s.cron) return `cron ${s.cron}${s.tz ? ` (${s.tz})` : ''}`;
  return `every ${formatDuration(s.everyMs ?? 0)}`;
}

function date(flag: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const d = new Date(value);
  if (Number.isNaN(d.getTime()))
    throw new ValidationError(
      `Expected \`${flag}\` to be an ISO date like 2026-12-01T02:00:00Z, got "${value}"`,
    );
  return d;
}

export async function scheduleListCommand(ctx: Context, queueName: string): Promise<void> {
  await withQueue(ctx, queueName, async (queue) => {
    const schedules = await queue.schedules();
    const now = Date.now();
    ctx.out.result(schedules, () => {
      if (schedules.length === 0) return `no schedules in ${queueName}`;
      return table(
        ['name', 'when', 'type', 'next', 'runs', 'version', ''],
        schedules.map((s) => [
          s.name,
          when(s),
          s.type,
          s.next === undefined ? '-' : `${formatTime(s.next)} (${relative(s.next, now)})`,
          s.limit ? `${s.count}/${s.limit}` : s.count,
          s.version,
          s.done ? pc.dim('done') : '',
        ]),
      );
    });
  });
}

/** `dueq schedule set`: the same checks as queue.schedule(); a refused schedule stores nothing. */
export async function scheduleSetCommand(
  ctx: Context,
  queueName: string,
  name: string,
  options: ScheduleSetOptions,
): Promise<void> {
  if (!options.type) throw new CliError('schedule set needs --type <job type>', EXIT.usage);
  const spec: ScheduleOptions = { type: options.type };
  if (options.cron !== undefined) spec.cron = options.cron;
  if (options.every !== undefined) spec.every = options.every;
  if (options.tz !== undefined) spec.tz = options.tz;
  if (options.data !== undefined) spec.data = jsonArgument('--data', options.data);
  if (options.overlap !== undefined) spec.overlap = options.overlap as ScheduleOptions['overlap'];
  if (options.catchUp !== undefined) spec.catchUp = options.catchUp as ScheduleOptions['catchUp'];
  if (options.limit !== undefined) spec.limit = intOption('--limit', options.limit, 1, 1e12);
  const startAt = date('--start-at', options.startAt);
  if (startAt) spec.startAt = startAt;
  const endAt = date('--end-at', options.endAt);
  if (endAt) spec.endAt = endAt;
  const opts: NonNullable<ScheduleOptions['opts']> = {};
  if (options.priority !== undefined) opts.priority = intOption('--priority', options.priority, 0, 1_000_000);
  if (options.maxAttempts !== undefined)
    opts.maxAttempts = intOption('--max-attempts', options.maxAttempts, 1, 1_000_000);
  if (options.timeout !== undefined) opts.timeout = options.timeout;
  if (Object.keys(opts).length > 0) spec.opts = opts;
  await withQueue(ctx, queueName, async (queue) => {
    const info = await queue.schedule(name, spec);
    ctx.out.result(
      info,
      () =>
        `schedule ${pc.bold(info.name)} set (version ${info.version}): ${when(info)} → ${info.type}; next ${info.next === undefined ? 'none' : `${formatTime(info.next)} (${relative(info.next, Date.now())})`}`,
    );
  });
}

export async function scheduleRemoveCommand(ctx: Context, queueName: string, name: string): Promise<void> {
  await withQueue(ctx, queueName, async (queue) => {
    if (!(await queue.unschedule(name)))
      throw new CliError(`No schedule "${name}" in queue "${queueName}"`, EXIT.notFound);
    ctx.out.result(
      { removed: name },
      () => `removed schedule ${name} and its occurrences that had not started`,
    );
  });
}
