import type { JobInfo } from '../queue/job-info.js';
import { pc } from './colors.js';

/** 1234 → '1.2 s', 90_000 → '1m 30s', 5 → '5 ms'. */
export function formatDuration(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < 1_000) return `${Math.round(ms)} ms`;
  if (abs < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const totalSeconds = Math.round(abs / 1_000);
  const h = Math.floor(totalSeconds / 3_600);
  const m = Math.floor((totalSeconds % 3_600) / 60);
  const s = totalSeconds % 60;
  const text = h > 0 ? `${h}h ${m}m` : `${m}m ${s}s`;
  return ms < 0 ? `-${text}` : text;
}

export function formatTime(ms: number | undefined): string {
  return ms === undefined || ms === 0 ? '-' : new Date(ms).toISOString();
}

/** When something happens relative to now: 'in 29m 58s', '3.2 s ago'. */
export function relative(ms: number, now: number): string {
  const delta = ms - now;
  return delta >= 0 ? `in ${formatDuration(delta)}` : `${formatDuration(-delta)} ago`;
}

/** Left-aligned columns, the header dimmed. */
export function table(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [pc.dim(line(header)), ...cells.slice(1).map(line)].join('\n');
}

export function stateColour(state: string): string {
  switch (state) {
    case 'dead':
      return pc.red(state);
    case 'active':
      return pc.cyan(state);
    case 'done':
      return pc.green(state);
    case 'delayed':
      return pc.yellow(state);
    default:
      return state;
  }
}

/** A job for people, as `dueq show` prints it. */
export function formatJob(job: JobInfo, now: number): string {
  const lines = [
    `${pc.bold(job.id)}  ${job.type}  ${stateColour(job.state)}`,
    `  data         ${JSON.stringify(job.data)}${job.dataInvalid ? pc.red('  (not valid JSON)') : ''}`,
    `  attempt      ${job.attempt} of ${job.maxAttempts}`,
    `  due          ${formatTime(job.dueAt)} (${relative(job.dueAt, now)})`,
    `  created      ${formatTime(job.createdAt)}`,
  ];
  if (job.startedAt) lines.push(`  started      ${formatTime(job.startedAt)}`);
  if (job.finishedAt) lines.push(`  finished     ${formatTime(job.finishedAt)}`);
  if (job.priority) lines.push(`  priority     ${job.priority}`);
  if (job.key) lines.push(`  key          ${job.key}`);
  if (job.timeoutMs) lines.push(`  timeout      ${formatDuration(job.timeoutMs)}`);
  lines.push(`  backoff      ${JSON.stringify(job.backoff)}`);
  if (job.progress !== undefined) lines.push(`  progress     ${job.progress}`);
  if (job.result !== undefined) lines.push(`  result       ${JSON.stringify(job.result)}`);
  if (job.cancelRequested) lines.push(`  ${pc.yellow('cancel requested')}`);
  for (const error of job.errors) {
    lines.push(`  ${pc.red(`error (attempt ${error.attempt}, ${formatTime(error.at)})`)} ${error.message}`);
    if (error.stack)
      lines.push(
        pc.dim(
          error.stack
            .split('\n')
            .slice(1, 6)
            .map((l) => `      ${l.trim()}`)
            .join('\n'),
        ),
      );
  }
  return lines.join('\n');
}
