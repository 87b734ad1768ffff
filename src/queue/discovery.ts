import type { Client } from '../redis/connection.js';
import { scanKeys } from '../redis/scan.js';

/**
 * The names of the queues under a prefix, found by their `stats` hash (written by the first add).
 * SCAN, so it never blocks Redis; in a cluster every master is scanned.
 */
export async function listQueues(client: Client, prefix: string): Promise<string[]> {
  const start = `${prefix}:{`;
  const names = new Set<string>();
  for (const key of await scanKeys(client, `${prefix}:{*}:stats`)) {
    if (key.startsWith(start) && key.endsWith('}:stats'))
      names.add(key.slice(start.length, -'}:stats'.length));
  }
  return [...names].sort();
}
