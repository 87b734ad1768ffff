import { resolve } from 'node:path';
import { DEFAULT_PREFIX } from '../defaults.js';
import { Queue } from '../queue/queue.js';
import type { Client } from '../redis/connection.js';
import { clientFromUrl, redact } from '../redis/url.js';
import { CliError, createOutput, EXIT, type Output } from './output.js';
import { type RedisTarget, resolveRedis } from './redis-target.js';

/** The options every command shares (commander hands them over with optsWithGlobals()). */
export interface GlobalOptions {
  redis?: string;
  prefix?: string;
  json?: boolean;
  verbose?: boolean;
  dataDir?: string;
}

export interface Context {
  out: Output;
  verbose: boolean;
  prefix: string;
  /** Where dueq keeps its pid file, control socket and embedded Redis data. */
  dataDir: string;
  redisOption: string | undefined;
}

export function contextFrom(options: GlobalOptions): Context {
  return {
    out: createOutput(options.json === true),
    verbose: options.verbose === true,
    prefix: options.prefix ?? DEFAULT_PREFIX,
    dataDir: resolve(options.dataDir ?? '.dueq'),
    redisOption: options.redis,
  };
}

/** Passwords never reach logs or notes. */
export function redactUrl(url: string): string {
  return redact(url);
}

/**
 * Runs `fn` with a Queue on the resolved Redis, failing fast with one clear line when Redis cannot
 * be reached (a CLI command should not retry for minutes), and closes everything after.
 */
export async function withQueue<T>(ctx: Context, name: string, fn: (queue: Queue) => Promise<T>): Promise<T> {
  return withRedis(ctx, async (client) => {
    const queue = new Queue(name, { connection: client, prefix: ctx.prefix });
    try {
      return await fn(queue);
    } finally {
      await queue.close();
    }
  });
}

export async function withRedis<T>(
  ctx: Context,
  fn: (client: Client, target: RedisTarget) => Promise<T>,
): Promise<T> {
  const target = await resolveRedis({
    redis: ctx.redisOption,
    dataDir: ctx.dataDir,
    allowEmbedded: true,
    note: (text) => ctx.out.note(text),
  });
  const client = clientFromUrl(target.url, {
    lazyConnect: true,
    connectTimeout: 3_000,
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => (attempt > 3 ? null : 200),
    connectionName: 'dueq:cli',
    // A short-lived command must not wait 2 s for a closing socket.
    disconnectTimeout: 100,
  });
  let lastError: Error | undefined;
  client.on('error', (error: Error) => {
    lastError = error;
  });
  try {
    try {
      await client.connect();
      await client.ping();
    } catch (error) {
      const cause = lastError ?? (error as Error);
      throw new CliError(`cannot reach Redis at ${redactUrl(target.url)}: ${cause.message}`, EXIT.failure);
    }
    return await fn(client, target);
  } finally {
    await client.quit().catch(() => client.disconnect());
    await target.close();
  }
}
