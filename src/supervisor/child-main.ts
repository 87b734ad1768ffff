/**
 * A worker process of `dueq start`: loads the jobs directory, runs one Worker per queue with its
 * own Redis connections (never one inherited across a fork, seed 000 §4.1), and reports to the
 * supervisor over IPC: ready, health (memory, running jobs, job histograms), stuck handlers. It
 * drains when told to, when the supervisor goes away, or on SIGTERM; it ignores SIGINT, which a
 * terminal sends to the whole process group: the supervisor decides.
 */
import { loadJobsDirectory } from '../jobs/discover.js';
import { logJobs } from '../logging/job-log.js';
import { createLogger } from '../logging/logger.js';
import { JobMetrics } from '../metrics/job-metrics.js';
import { Worker } from '../worker/worker.js';
import { CHILD_CONFIG_ENV, type ChildConfig, type FromChild, type ToChild } from './messages.js';

const HEALTH_INTERVAL_MS = 1_000;

function send(message: FromChild): void {
  if (process.connected) process.send?.(message);
}

async function main(): Promise<void> {
  const config = JSON.parse(process.env[CHILD_CONFIG_ENV] ?? 'null') as ChildConfig | null;
  if (!config) throw new Error(`${CHILD_CONFIG_ENV} is not set: this file is started by \`dueq start\``);
  const log = createLogger({ component: 'worker', bindings: { slot: config.slot } });
  process.on('SIGINT', () => {});

  let definitions: Awaited<ReturnType<typeof loadJobsDirectory>>;
  try {
    definitions = await loadJobsDirectory(config.jobsDir);
  } catch (error) {
    send({ type: 'fatal', message: (error as Error).message });
    log.error((error as Error).message);
    process.exit(78);
  }

  const metrics = new JobMetrics();
  const workers = config.queues.map((queue) => {
    const worker = new Worker(queue, definitions, {
      connection: config.redisUrl,
      prefix: config.prefix,
      shards: config.shards,
      concurrency: config.concurrency,
      leaseMs: config.leaseMs,
    });
    logJobs(worker, log);
    metrics.attach(worker);
    return worker;
  });

  let draining = false;
  const drain = async () => {
    if (draining) return;
    draining = true;
    clearInterval(health);
    log.info('draining: no new jobs, finishing the running ones');
    await Promise.all(workers.map((w) => w.close({ timeoutMs: config.closeTimeoutMs })));
    log.info('drained');
    process.exit(0);
  };
  process.on('message', (message: ToChild) => {
    if (message.type === 'drain') void drain();
  });
  process.on('disconnect', () => void drain());
  process.on('SIGTERM', () => void drain());

  const health = setInterval(() => {
    const active = workers.reduce((n, w) => n + w.activeCount, 0);
    const rssMb = Math.round(process.memoryUsage.rss() / 1_048_576);
    void metrics.snapshot().then((snapshot) => send({ type: 'health', rssMb, active, metrics: snapshot }));
    const stuck = workers.flatMap((w) => w.stuckJobs()).filter((j) => j.overdueMs >= config.stuckAfterMs);
    if (stuck.length > 0) send({ type: 'stuck', jobs: stuck });
  }, HEALTH_INTERVAL_MS);

  await Promise.all(workers.map((w) => w.waitUntilReady()));
  send({ type: 'ready', types: definitions.map((d) => d.type) });
}

main().catch((error: unknown) => {
  send({ type: 'fatal', message: error instanceof Error ? error.message : String(error) });
  console.error(error);
  process.exit(1);
});
