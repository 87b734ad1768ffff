import { type Cluster, Redis, type RedisOptions } from 'ioredis';
import { ValidationError } from '../errors.js';
import { describe } from '../util/describe.js';
import { clientFromUrl, parseRedisUrl } from './url.js';

/**
 * How to reach Redis: a URL (`redis://…`, `rediss://…`), ioredis options, or a connected ioredis
 * client (`Redis` or `Cluster`) to share. dueq never closes a client it was given; where it needs a
 * connection of its own (a worker's blocking wait, its Pub/Sub listener) it duplicates it.
 */
export type ConnectionOption = string | RedisOptions | Redis | Cluster;

export type Client = Redis | Cluster;

export interface OpenedClient {
  readonly client: Client;
  /** dueq made this connection, so dueq closes it. */
  readonly owned: boolean;
}

export interface ConnectPurpose {
  /** Shown in CLIENT LIST, so an operator can tell dueq's connections apart. */
  readonly name: string;
  /** A blocking or subscriber connection: never share one a caller gave us. */
  readonly dedicated?: boolean;
  /**
   * Producers fail fast while Redis is down (their caller decides what to do); workers and
   * schedulers wait for it to come back, so their commands retry without limit.
   */
  readonly waitForRedis?: boolean;
}

function isClient(value: unknown): value is Client {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Client).duplicate === 'function' &&
    typeof (value as Client).defineCommand === 'function'
  );
}

export function checkConnection(connection: unknown): void {
  if (typeof connection === 'string') {
    parseRedisUrl(connection);
    return;
  }
  if (connection === undefined || isClient(connection)) return;
  if (typeof connection !== 'object' || connection === null || Array.isArray(connection)) {
    throw new ValidationError(
      `Expected \`connection\` to be a Redis URL, ioredis options or an ioredis client, got ${describe(connection)}`,
    );
  }
}

export function openClient(connection: ConnectionOption | undefined, purpose: ConnectPurpose): OpenedClient {
  const overrides: RedisOptions = {
    connectionName: purpose.name,
    ...(purpose.waitForRedis ? { maxRetriesPerRequest: null } : {}),
  };
  if (isClient(connection)) {
    if (!purpose.dedicated) return { client: connection, owned: false };
    // Cluster.duplicate takes (startupNodes, options), Redis.duplicate takes (options).
    const copy =
      'nodes' in connection && typeof connection.nodes === 'function'
        ? (connection as Cluster).duplicate(undefined, overrides as never)
        : (connection as Redis).duplicate(overrides);
    return { client: copy as Client, owned: true };
  }
  if (typeof connection === 'string') return { client: clientFromUrl(connection, overrides), owned: true };
  return { client: new Redis({ ...(connection ?? {}), ...overrides }), owned: true };
}

/**
 * Closes a connection dueq owns: QUIT, falling back to a hard disconnect if Redis is gone.
 * A blocking connection is cut at once (`hard`): QUIT would wait behind the blocked call.
 */
export async function closeClient(opened: OpenedClient, hard = false): Promise<void> {
  if (!opened.owned) return;
  const { client } = opened;
  if (client.status === 'end') return;
  if (hard || client.status !== 'ready') {
    client.disconnect();
    return;
  }
  const timer = setTimeout(() => client.disconnect(), 1_000);
  try {
    await client.quit();
  } catch {
    client.disconnect();
  } finally {
    clearTimeout(timer);
  }
}
