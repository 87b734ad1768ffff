import { pc } from '../colors.js';
import { type Context, withQueue } from '../context.js';
import { formatTime, table } from '../format.js';
import { CliError, EXIT } from '../output.js';
import { intOption } from '../parse.js';

export async function deadListCommand(
  ctx: Context,
  queueName: string,
  options: { limit: string; offset: string },
): Promise<void> {
  const limit = intOption('--limit', options.limit, 1, 1_000);
  const offset = intOption('--offset', options.offset, 0, Number.MAX_SAFE_INTEGER);
  await withQueue(ctx, queueName, async (queue) => {
    const [jobs, counts] = await Promise.all([queue.dead.list({ offset, limit }), queue.counts()]);
    ctx.out.result({ total: counts.dead, offset, jobs }, () => {
      if (jobs.length === 0) return `no dead jobs in ${queueName}${offset > 0 ? ` past ${offset}` : ''}`;
      const rows = jobs.map((j) => [
        j.id,
        j.type,
        `${j.attempt}/${j.maxAttempts}`,
        formatTime(j.finishedAt),
        (j.errors.at(-1)?.message ?? '').slice(0, 70),
      ]);
      return `${table(['id', 'type', 'attempts', 'died', 'last error'], rows)}\n${pc.dim(`${offset + 1}–${offset + jobs.length} of ${counts.dead} dead jobs, newest first`)}`;
    });
  });
}

export async function deadReplayCommand(
  ctx: Context,
  queueName: string,
  options: { limit: string },
): Promise<void> {
  const limit = intOption('--limit', options.limit, 1, 1_000_000);
  await withQueue(ctx, queueName, async (queue) => {
    const moved = await queue.dead.replay({ limit });
    const left = (await queue.counts()).dead;
    ctx.out.result(
      { replayed: moved, left },
      () =>
        `replayed ${moved} dead job${moved === 1 ? '' : 's'} (oldest first, attempts reset); ${left} left`,
    );
  });
}

export async function deadRemoveCommand(
  ctx: Context,
  queueName: string,
  id: string | undefined,
): Promise<void> {
  if (!id) throw new CliError('dead remove needs a job id: dueq dead remove <queue> <id>', EXIT.usage);
  await withQueue(ctx, queueName, async (queue) => {
    await queue.dead.remove(id);
    ctx.out.result({ removed: id }, () => `removed dead job ${id}`);
  });
}

export async function deadPurgeCommand(
  ctx: Context,
  queueName: string,
  options: { yes?: boolean },
): Promise<void> {
  await withQueue(ctx, queueName, async (queue) => {
    const count = (await queue.counts()).dead;
    if (!options.yes) {
      throw new CliError(
        `purge deletes all ${count} dead jobs of ${queueName} for good; run it again with --yes`,
        EXIT.usage,
      );
    }
    const removed = await queue.dead.purge();
    ctx.out.result(
      { purged: removed },
      () => `purged ${removed} dead job${removed === 1 ? '' : 's'} from ${queueName}`,
    );
  });
}
