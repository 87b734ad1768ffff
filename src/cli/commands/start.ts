import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEFAULT_CLOSE_TIMEOUT_MS, DEFAULT_CONCURRENCY, DEFAULT_LEASE_MS, LIMITS } from '../../defaults.js';
import { ValidationError } from '../../errors.js';
import { createLogger } from '../../logging/logger.js';
import { checkShards, MAX_SHARDS } from '../../queue/shards.js';
import { closeClient, openClient } from '../../redis/connection.js';
import { evictionWarning } from '../../redis/eviction.js';
import { checkQueueName } from '../../redis/keys.js';
import { AlreadyRunningError, readLivePid } from '../../supervisor/pid-file.js';
import { Supervisor } from '../../supervisor/supervisor.js';
import { parseDuration } from '../../util/duration.js';
import { type Context, redactUrl } from '../context.js';
import { redisProblem } from '../embedded-redis.js';
import { CliError, EXIT } from '../output.js';
import { intOption } from '../parse.js';
import { resolveRedis } from '../redis-target.js';

export interface StartOptions {
  jobs: string;
  queue: string[];
  shards?: string;
  workers: string;
  concurrency?: string;
  grace: string;
  lease?: string;
  maxMemoryMb?: string;
  stuckAfter: string;
  pidFile?: string;
  metricsPort?: string;
  metricsHost: string;
}

/** `dueq start`: the supervisor, in the foreground. Resolves with the exit code. */
export async function startCommand(ctx: Context, options: StartOptions): Promise<number> {
  const jobsDir = resolve(options.jobs);
  if (!existsSync(jobsDir) || !statSync(jobsDir).isDirectory()) {
    throw new ValidationError(`--jobs ${options.jobs}: no such directory`);
  }
  const queues = (options.queue.length > 0 ? options.queue : ['default']).map((q) => checkQueueName(q));
  const shards =
    options.shards === undefined ? undefined : intOption('--shards', options.shards, 1, MAX_SHARDS);
  for (const queue of queues) checkShards(queue, shards);
  const workers = intOption('--workers', options.workers, 1, 256);
  const concurrency =
    options.concurrency === undefined
      ? DEFAULT_CONCURRENCY
      : intOption('--concurrency', options.concurrency, 1, LIMITS.concurrency);
  const graceMs = parseDuration('--grace', options.grace, LIMITS.delayMs);
  const leaseMs =
    options.lease === undefined ? DEFAULT_LEASE_MS : parseDuration('--lease', options.lease, LIMITS.delayMs);
  if (leaseMs < 1_000)
    throw new ValidationError(`Expected \`--lease\` to be at least 1s, got ${options.lease}`);
  const maxMemoryMb =
    options.maxMemoryMb === undefined
      ? undefined
      : intOption('--max-memory-mb', options.maxMemoryMb, 16, 1_048_576);
  const stuckAfterMs = parseDuration('--stuck-after', options.stuckAfter, LIMITS.delayMs);
  const pidFile = resolve(options.pidFile ?? join(ctx.dataDir, 'dueq.pid'));
  const metricsPort =
    options.metricsPort === undefined
      ? undefined
      : intOption('--metrics-port', options.metricsPort, 1, 65_535);

  // Refuse before starting anything, an embedded Redis included.
  const holder = readLivePid(pidFile);
  if (holder !== undefined) throw new AlreadyRunningError(holder, pidFile);

  const log = createLogger({ component: 'supervisor' });
  const redis = await resolveRedis({
    redis: ctx.redisOption,
    dataDir: ctx.dataDir,
    allowEmbedded: true,
    note: (t) => log.info(t),
  });
  // Workers and schedulers wait for Redis forever; a start with none to reach should say so instead.
  const problem = await redisProblem(redis.url, 3_000);
  if (problem) {
    await redis.close();
    throw new CliError(`cannot reach Redis at ${redactUrl(redis.url)}: ${problem}`, EXIT.failure);
  }
  log.info({ redis: redactUrl(redis.url), source: redis.source }, `using Redis at ${redactUrl(redis.url)}`);
  const checker = openClient(redis.url, { name: 'dueq:start' });
  const eviction = await evictionWarning(checker.client);
  await closeClient(checker);
  if (eviction) log.warn({ redis: redactUrl(redis.url) }, eviction);
  const supervisor = new Supervisor({
    jobsDir,
    queues,
    workers,
    concurrency,
    leaseMs,
    graceMs,
    maxMemoryMb,
    stuckAfterMs,
    pidFile,
    redisUrl: redis.url,
    prefix: ctx.prefix,
    shards,
    metricsPort,
    metricsHost: options.metricsHost,
    log,
  });
  try {
    await supervisor.start();
  } catch (error) {
    await redis.close();
    throw error;
  }
  const code = await supervisor.done;
  await redis.close();
  return code;
}

export const START_DEFAULTS = {
  workers: '2',
  grace: `${DEFAULT_CLOSE_TIMEOUT_MS / 1000}s`,
  stuckAfter: '10s',
} as const;
