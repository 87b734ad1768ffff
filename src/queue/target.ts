import { DEFAULT_PREFIX } from '../defaults.js';
import { type ConnectionOption, checkConnection } from '../redis/connection.js';
import { checkPrefix, checkQueueName, type QueueKeys, queueKeys } from '../redis/keys.js';
import type { Queue } from './queue.js';

export interface QueueTarget {
  name: string;
  prefix: string;
  keys: QueueKeys;
  /** The keys of each queue to serve: the queue's own, or every shard's of a sharded Queue. */
  lanes: QueueKeys[];
  connection: ConnectionOption | undefined;
}

/**
 * The queue a Worker or Scheduler serves, given by name or as a Queue: a Queue lends its prefix
 * and connection unless the options name their own.
 */
export function resolveQueueTarget(
  queue: string | Queue,
  options: { connection?: ConnectionOption; prefix?: string },
): QueueTarget {
  checkConnection(options.connection);
  const fromQueue = typeof queue === 'string' ? undefined : queue;
  const name = checkQueueName(fromQueue ? fromQueue.name : queue);
  const prefix =
    options.prefix === undefined ? (fromQueue?.prefix ?? DEFAULT_PREFIX) : checkPrefix(options.prefix);
  const keys = queueKeys(prefix, name);
  const shards = fromQueue?.shards ?? [];
  return {
    name,
    prefix,
    keys,
    lanes: shards.length > 0 ? shards.map((shard) => queueKeys(prefix, shard.name)) : [keys],
    connection: options.connection ?? fromQueue?.connectionOption,
  };
}
