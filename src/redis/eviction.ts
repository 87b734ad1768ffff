import type { Client } from './connection.js';

/**
 * A warning when Redis may evict keys: under memory pressure any policy but `noeviction` deletes
 * keys to make room, job hashes and the structures that hold them among them, and jobs are lost
 * without a trace. Undefined when the policy is `noeviction`, or when Redis will not say (managed
 * services often refuse CONFIG).
 */
export async function evictionWarning(client: Client): Promise<string | undefined> {
  let policy: string | undefined;
  try {
    const reply = (await client.config('GET', 'maxmemory-policy')) as unknown;
    policy = Array.isArray(reply) ? String(reply[1] ?? '') : undefined;
  } catch {
    return undefined;
  }
  if (!policy || policy === 'noeviction') return undefined;
  return `Redis maxmemory-policy is ${policy}: when memory runs short Redis deletes keys, jobs among them; set maxmemory-policy to noeviction`;
}
