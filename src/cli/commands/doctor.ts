import { pc } from '../colors.js';
import { type Context, withQueue } from '../context.js';
import { CliError, EXIT } from '../output.js';

/** `dueq doctor <queue> [--repair]`: checks DESIGN §3; exit 5 while problems remain. */
export async function doctorCommand(
  ctx: Context,
  queueName: string,
  options: { repair?: boolean },
): Promise<void> {
  await withQueue(ctx, queueName, async (queue) => {
    const report = await queue.doctor({ repair: options.repair === true });
    const after = report.repaired > 0 ? await queue.doctor() : report;
    ctx.out.result({ ...report, remaining: after.problems }, () => {
      if (report.ok) return `${pc.green('ok')}  ${queueName}: ${report.jobs} jobs, each in exactly one state`;
      const lines = report.problems.map((p) => `  ${pc.yellow(p.kind.padEnd(12))} ${p.detail}`);
      const head = `${pc.yellow(`${report.problems.length} problem${report.problems.length === 1 ? '' : 's'}`)} in ${queueName} (${report.jobs} jobs):`;
      const tail = options.repair
        ? `repaired ${report.repaired}; ${after.problems.length === 0 ? pc.green('now clean') : `${after.problems.length} remain (a job with missing fields goes to dead when a worker claims it)`}`
        : 'run again with --repair to fix orphans and strays';
      return [head, ...lines, tail].join('\n');
    });
    if (after.problems.length > 0)
      throw new CliError(`${after.problems.length} problem(s) remain in ${queueName}`, EXIT.unhealthy);
  });
}
