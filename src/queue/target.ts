import { DEFAULT_PREFIX } from '../defaults.js';
import { ValidationError } from '../errors.js';
import { type ConnectionOption, checkConnection } from '../redis/connection.js';
import { checkPrefix, checkQueueName, type QueueKeys, queueKeys } from '../redis/keys.js';
import type { Queue } from './queue.js';
import { checkShards, shardName } from './shards.js';

export interface QueueTarget {
  name: string;
  prefix: string;
  keys: QueueKeys;
  /** The keys of each queue to serve: the queue's own, or every shard's of a sharded Queue. */
  lanes: QueueKeys[];
  connection: ConnectionOption | undefined;
}

/**
 * The queue a Worker or Scheduler serves, given by name or as a Queue: a Queue lends its prefix,
 * connection and shards unless the options name their own. `shards` serves a sharded queue by
 * name (`dueq start --shards`): the same N shards a `new Queue(name, { shards: N })` adds to.
 */
export function resolveQueueTarget(
  queue: string | Queue,
  options: { connection?: ConnectionOption; prefix?: string; shards?: number },
): QueueTarget {
  checkConnection(options.connection);
  const fromQueue = typeof queue === 'string' ? undefined : queue;
  const name = checkQueueName(fromQueue ? fromQueue.name : queue);
  const prefix =
    options.prefix === undefined ? (fromQueue?.prefix ?? DEFAULT_PREFIX) : checkPrefix(options.prefix);
  const keys = queueKeys(prefix, name);
  const given = fromQueue ? Math.max(fromQueue.shards.length, 1) : 1;
  const count = options.shards === undefined ? given : checkShards(name, options.shards);
  if (fromQueue && count !== given) {
    throw new ValidationError(`Expected \`shards\` to match the Queue's ${given}, got ${count}`);
  }
  const shardNames = Array.from({ length: count > 1 ? count : 0 }, (_, i) => shardName(name, i));
  return {
    name,
    prefix,
    keys,
    lanes: shardNames.length > 0 ? shardNames.map((shard) => queueKeys(prefix, shard)) : [keys],
    connection: options.connection ?? fromQueue?.connectionOption,
  };
}
