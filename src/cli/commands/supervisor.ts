import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { controlSocketPath, sendControl } from '../../supervisor/control.js';
import { isAlive, readLivePid } from '../../supervisor/pid-file.js';
import type { SupervisorStatus } from '../../supervisor/supervisor.js';
import { parseDuration } from '../../util/duration.js';
import { pc } from '../colors.js';
import type { Context } from '../context.js';
import { formatDuration, table } from '../format.js';
import { CliError, EXIT } from '../output.js';
import { intOption } from '../parse.js';

function pidFileOf(ctx: Context, option: string | undefined): string {
  return resolve(option ?? join(ctx.dataDir, 'dueq.pid'));
}

function runningPid(pidFile: string): number {
  const pid = readLivePid(pidFile);
  if (pid !== undefined) return pid;
  if (existsSync(pidFile)) {
    rmSync(pidFile, { force: true });
    throw new CliError(`dueq is not running (removed the stale pid file ${pidFile})`, EXIT.notFound);
  }
  throw new CliError(`dueq is not running (no pid file at ${pidFile})`, EXIT.notFound);
}

/** `dueq stop`: SIGTERM to the supervisor, then waits for it to be gone. */
export async function stopCommand(
  ctx: Context,
  options: { pidFile?: string; timeout: string },
): Promise<void> {
  const pidFile = pidFileOf(ctx, options.pidFile);
  const timeoutMs = parseDuration('--timeout', options.timeout, 24 * 3_600_000);
  const pid = runningPid(pidFile);
  const started = Date.now();
  process.kill(pid, 'SIGTERM');
  while (isAlive(pid)) {
    if (Date.now() - started > timeoutMs) {
      throw new CliError(
        `dueq (pid ${pid}) is still stopping after ${formatDuration(timeoutMs)}; it drains running jobs for up to its --grace`,
        EXIT.failure,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const tookMs = Date.now() - started;
  ctx.out.result(
    { stopped: true, pid, tookMs },
    () => `stopped dueq (pid ${pid}) in ${formatDuration(tookMs)}`,
  );
}

/** `dueq reload [--workers N]`: new worker processes on fresh job code, then the old ones drain. */
export async function reloadCommand(
  ctx: Context,
  options: { pidFile?: string; workers?: string },
): Promise<void> {
  const pidFile = pidFileOf(ctx, options.pidFile);
  const pid = runningPid(pidFile);
  const workers = options.workers === undefined ? undefined : intOption('--workers', options.workers, 1, 256);
  const socket = controlSocketPath(pidFile);
  if (!existsSync(socket)) {
    if (workers !== undefined)
      throw new CliError(
        `dueq (pid ${pid}) has no control socket at ${socket}; it cannot be resized, only reloaded (omit --workers)`,
        EXIT.failure,
      );
    process.kill(pid, 'SIGHUP');
    ctx.out.result(
      { reloaded: true, pid, signal: 'SIGHUP' },
      () => `sent SIGHUP to dueq (pid ${pid}): reloading`,
    );
    return;
  }
  const result = (await sendControl(
    socket,
    { cmd: 'reload', ...(workers === undefined ? {} : { workers }) },
    120_000,
  )) as {
    from: number;
    to: number;
  };
  ctx.out.result(
    { reloaded: true, pid, ...result },
    () => `reloaded dueq (pid ${pid}): ${result.from} → ${result.to} worker processes on fresh job code`,
  );
}

/** `dueq status`: the supervisor's worker processes, their memory and jobs. */
export async function statusCommand(ctx: Context, options: { pidFile?: string }): Promise<void> {
  const pidFile = pidFileOf(ctx, options.pidFile);
  const pid = runningPid(pidFile);
  const socket = controlSocketPath(pidFile);
  if (!existsSync(socket)) {
    ctx.out.result(
      { running: true, pid },
      () => `dueq is running (pid ${pid}); no control socket for details`,
    );
    return;
  }
  const status = (await sendControl(socket, { cmd: 'status' })) as SupervisorStatus;
  ctx.out.result({ running: true, ...status }, () =>
    [
      `${pc.green('running')}  pid ${status.pid}, up ${formatDuration(status.uptimeMs)}, ${status.state}`,
      `queues   ${status.queues.join(', ')}`,
      `jobs     ${status.jobsDir}`,
      `workers  ${status.workers.filter((w) => w.state === 'running').length} of ${status.workersWanted} running, ${status.concurrency} jobs at once each, ${status.restarts} restarts`,
      status.backpressure.length > 0 ? pc.yellow(`backpressure on ${status.backpressure.join(', ')}`) : '',
      '',
      table(
        ['slot', 'pid', 'state', 'up', 'memory', 'running jobs'],
        status.workers.map((w) => [
          w.slot,
          w.pid ?? '-',
          w.state,
          formatDuration(w.uptimeMs),
          `${w.rssMb} MB`,
          w.active,
        ]),
      ),
    ]
      .filter((line, i) => line !== '' || i === 5)
      .join('\n'),
  );
}
