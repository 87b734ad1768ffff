import type { Cluster, Redis } from 'ioredis';
import type { Client } from '../redis/connection.js';

/**
 * The names of the queues under a prefix, found by their `stats` hash (written by the first add).
 * SCAN, so it never blocks Redis; in a cluster every master is scanned.
 */
export async function listQueues(client: Client, prefix: string): Promise<string[]> {
  const nodes: Redis[] =
    'nodes' in client && typeof client.nodes === 'function'
      ? (client as Cluster).nodes('master')
      : [client as Redis];
  const start = `${prefix}:{`;
  const names = new Set<string>();
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}:{*}:stats`, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) {
        if (key.startsWith(start) && key.endsWith('}:stats'))
          names.add(key.slice(start.length, -'}:stats'.length));
      }
    } while (cursor !== '0');
  }
  return [...names].sort();
}
