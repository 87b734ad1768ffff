import { randomFillSync } from 'node:crypto';

/**
 * Job ids are made on the client, so that an add that ioredis re-sends after a reconnect finds
 * its own job instead of making a second one. 16 url-safe characters: 96 random bits.
 */
const POOL_SIZE = 12 * 512;
const pool = Buffer.allocUnsafe(POOL_SIZE);
let offset = POOL_SIZE;

export function newJobId(): string {
  if (offset + 12 > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString('base64url', offset, offset + 12);
  offset += 12;
  return id;
}

/** A token unique to one Worker instance; claim batches append a counter to it. */
export function newWorkerId(): string {
  return newJobId().slice(0, 10);
}
