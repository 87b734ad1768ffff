import type { Cluster, Redis } from 'ioredis';
import type { Client } from './connection.js';

/**
 * Every key matching `pattern`, by SCAN (never KEYS, which blocks Redis). In a cluster each
 * master is scanned; a node whose connection just closed (a master demoted by a failover, while
 * the client learns the new layout) is skipped: the keys are on the masters it still talks to.
 */
export async function scanKeys(client: Client, pattern: string): Promise<string[]> {
  const nodes: Redis[] = isCluster(client) ? client.nodes('master') : [client];
  const found = new Set<string>();
  for (const node of nodes) {
    if (isCluster(client) && node.status !== 'ready') continue;
    let cursor = '0';
    try {
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        cursor = next;
        for (const key of keys) found.add(key);
      } while (cursor !== '0');
    } catch (error) {
      if (!isCluster(client)) throw error;
    }
  }
  return [...found];
}

export function isCluster(client: Client): client is Cluster {
  return 'nodes' in client && typeof client.nodes === 'function';
}
