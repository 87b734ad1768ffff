import type { Redis } from 'ioredis';

/** Calls per command since the server started (INFO commandstats), e.g. { evalsha: 12, blpop: 3 }. */
export async function commandCalls(client: Redis): Promise<Record<string, number>> {
  const info = await client.info('commandstats');
  const calls: Record<string, number> = {};
  for (const match of info.matchAll(/^cmdstat_([a-z|_-]+):calls=(\d+)/gm)) {
    calls[match[1] as string] = Number(match[2]);
  }
  return calls;
}

/** Script calls (EVAL and EVALSHA) between two readings. */
export function scriptCallsBetween(before: Record<string, number>, after: Record<string, number>): number {
  const total = (c: Record<string, number>) => (c.evalsha ?? 0) + (c.eval ?? 0);
  return total(after) - total(before);
}
