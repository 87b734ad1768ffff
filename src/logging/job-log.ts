import type { JobInfo } from '../queue/job-info.js';
import type { Worker } from '../worker/worker.js';
import type { Logger } from './logger.js';

/**
 * One log line per finished attempt (seed 003 §5.3): queue, id, type, attempt, duration and
 * outcome, plus the error for failures; and worker errors. Readable in a terminal, JSON otherwise
 * (the logger decides).
 */
export function logJobs(worker: Worker, log: Logger): void {
  const queue = worker.name;
  const line = (job: JobInfo) => ({
    queue,
    id: job.id,
    type: job.type,
    attempt: job.attempt,
    durationMs:
      job.finishedAt !== undefined && job.startedAt !== undefined
        ? job.finishedAt - job.startedAt
        : undefined,
  });
  worker.on('completed', (job) =>
    log.info({ ...line(job), outcome: 'completed' }, `${job.type} ${job.id} completed`),
  );
  worker.on('retrying', (job, error) =>
    log.warn(
      { ...line(job), outcome: 'retrying', error: error.message, nextAt: new Date(job.dueAt).toISOString() },
      `${job.type} ${job.id} failed (attempt ${job.attempt}), will retry`,
    ),
  );
  worker.on('dead', (job, error) =>
    log.error(
      { ...line(job), outcome: 'dead', error: error.message },
      `${job.type} ${job.id} failed for good (attempt ${job.attempt})`,
    ),
  );
  worker.on('error', (error) => log.warn({ queue, error: error.message }, 'worker error'));
}
