import { EmbeddedRedis, redisAnswers } from './embedded-redis.js';

/** Where `dueq` looks for a local Redis before starting one of its own. */
export const LOCAL_REDIS_URL = 'redis://127.0.0.1:6379';

export interface RedisTarget {
  url: string;
  /** How it was found, for the note printed to people. */
  source: 'option' | 'env' | 'local' | 'embedded' | 'embedded-shared';
  /** Stops the embedded server if this command started it. */
  close(): Promise<void>;
}

/**
 * The Redis a command talks to: `--redis`, else REDIS_URL, else an embedded server another dueq
 * command started here, else a Redis answering on 127.0.0.1:6379 (DUEQ_LOCAL_REDIS_URL overrides
 * the address), else a new embedded redis-server (only where `allowEmbedded`).
 */
export async function resolveRedis(options: {
  redis: string | undefined;
  dataDir: string;
  allowEmbedded: boolean;
  note: (text: string) => void;
}): Promise<RedisTarget> {
  const none = async () => {};
  if (options.redis) return { url: options.redis, source: 'option', close: none };
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, source: 'env', close: none };
  const shared = await EmbeddedRedis.findRunning(options.dataDir);
  if (shared) return { url: shared, source: 'embedded-shared', close: none };
  const local = process.env.DUEQ_LOCAL_REDIS_URL ?? LOCAL_REDIS_URL;
  if (await redisAnswers(local, 500)) return { url: local, source: 'local', close: none };
  if (!options.allowEmbedded) {
    return { url: local, source: 'local', close: none };
  }
  const embedded = await EmbeddedRedis.start(options.dataDir);
  options.note(
    `No Redis at ${local}: started an embedded redis-server on ${embedded.url} (pid ${embedded.pid}, AOF on, data in ${embedded.dir}); it stops when this command ends.`,
  );
  return { url: embedded.url, source: 'embedded', close: () => embedded.stop() };
}
