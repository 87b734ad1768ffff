import { MultiBar, Presets } from 'cli-progress';
import { type BenchReport, runBenchmark, type StageName } from '../../benchmark/stages.js';
import { checkInteger } from '../../util/checks.js';
import { pc } from '../colors.js';
import { type Context, redactUrl, withRedis } from '../context.js';
import { table } from '../format.js';

const STAGES: StageName[] = ['produce', 'promote', 'consume', 'end-to-end'];

const WHAT: Record<StageName, string> = {
  produce: 'adds of delayed jobs',
  promote: 'due jobs moved to ready by a Scheduler',
  consume: 'one Worker draining ready jobs',
  'end-to-end': 'adds, promotion and a Worker together',
};

/**
 * `dueq bench`: produce, promote and consume measured one at a time and then together, on the
 * Redis given with --redis (seed 002 §6), with a progress bar per stage on a terminal.
 */
export async function benchCommand(
  ctx: Context,
  options: { jobs: string; concurrency: string; inFlight: string },
): Promise<void> {
  const jobs = checkInteger('--jobs', Number(options.jobs), 100, 10_000_000);
  const concurrency = checkInteger('--concurrency', Number(options.concurrency), 1, 10_000);
  const inFlight = checkInteger('--in-flight', Number(options.inFlight), 1, 10_000);
  await withRedis(ctx, async (client, target) => {
    ctx.out.note(`benchmarking ${redactUrl(target.url)}: ${jobs.toLocaleString('en-US')} jobs per stage`);
    // Bars only on a terminal, and never into --json output.
    const bars =
      !ctx.out.json && process.stderr.isTTY
        ? new MultiBar(
            { format: ' {stage} {bar} {value}/{total}', hideCursor: true, clearOnComplete: false },
            Presets.shades_classic,
          )
        : undefined;
    const barOf = new Map(
      STAGES.map((stage) => [stage, bars?.create(jobs, 0, { stage: stage.padEnd(10) })] as const),
    );
    let report: BenchReport;
    try {
      report = await runBenchmark(
        client,
        { jobs, concurrency, inFlight, prefix: ctx.prefix },
        (stage, done, total) => {
          const bar = barOf.get(stage);
          bar?.setTotal(total);
          bar?.update(Math.min(done, total));
        },
      );
    } finally {
      bars?.stop();
    }
    ctx.out.result(report, () => render(report, concurrency, inFlight));
  });
}

function render(report: BenchReport, concurrency: number, inFlight: number): string {
  const rows = report.stages.map((s) => [
    s.stage,
    s.jobsPerSecond.toLocaleString('en-US'),
    (s.ms / 1000).toFixed(2),
    s.lateness
      ? `all together, jobs due 0–99 ms after their add; lateness p50 ${s.lateness.p50} ms, p99 ${s.lateness.p99} ms, max ${s.lateness.max} ms`
      : WHAT[s.stage],
  ]);
  return [
    table(['stage', 'jobs/s', 'seconds', ''], rows),
    `${pc.bold('ceiling')}: ${report.ceiling.stage}, ${report.ceiling.jobsPerSecond.toLocaleString('en-US')} jobs/s (the slowest stage bounds the chain)`,
    pc.dim(
      `worker concurrency ${concurrency}, ${inFlight} adds in flight; the bench queue's keys were deleted`,
    ),
  ].join('\n');
}
