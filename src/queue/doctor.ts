import type { Client } from '../redis/connection.js';
import type { QueueKeys } from '../redis/keys.js';
import { scanKeys } from '../redis/scan.js';
import type { Store } from '../redis/store.js';

/**
 * Checks the invariants of DESIGN §3.1 over a whole queue: every job hash is in exactly one of
 * delayed, ready, active, dead, done, the one its state names, and every id in a structure has a
 * hash. With `repair`, puts things right the way seed 000 §4.2 does (repair.lua): a job hash in
 * no structure goes back to ready (a finished one back to done or dead, never re-run); an id with
 * no hash is dropped; an id in several structures stays only where its hash says.
 *
 * It reads every id of the queue into memory: an operator's tool, not a hot path.
 */

export type Structure = 'delayed' | 'ready' | 'active' | 'dead' | 'done';

export type Problem =
  | { kind: 'orphan-job'; id: string; state: string; detail: string }
  | { kind: 'missing-job'; id: string; in: Structure; detail: string }
  | { kind: 'duplicate'; id: string; in: Structure[]; detail: string }
  | { kind: 'wrong-state'; id: string; state: string; in: Structure; detail: string }
  | { kind: 'bad-job'; id: string; detail: string };

export interface DoctorReport {
  /** No problem found (before any repair). */
  ok: boolean;
  /** Job hashes seen. */
  jobs: number;
  problems: Problem[];
  /** How many problems the repair fixed (0 without `repair`). */
  repaired: number;
}

const STRUCTURES: readonly Structure[] = ['delayed', 'ready', 'active', 'dead', 'done'];
const REQUIRED_FIELDS = ['type', 'data', 'state', 'attempt', 'maxAttempts', 'dueAt', 'createdAt'] as const;

async function scanJobIds(client: Client, keys: QueueKeys): Promise<string[]> {
  // The prefix holds no glob characters: queue names and prefixes refuse them.
  return (await scanKeys(client, `${keys.jobPrefix}*`)).map((key) => key.slice(keys.jobPrefix.length));
}

async function readStructures(client: Client, keys: QueueKeys): Promise<Map<string, Structure[]>> {
  const [delayed, ready, prio, active, dead, done] = await Promise.all([
    client.zrange(keys.delayed, '0', '-1'),
    client.lrange(keys.ready, 0, -1),
    client.zrange(keys.prio, '0', '-1'),
    client.zrange(keys.active, '0', '-1'),
    client.zrange(keys.dead, '0', '-1'),
    client.zrange(keys.done, '0', '-1'),
  ]);
  const where = new Map<string, Structure[]>();
  const note = (ids: string[], structure: Structure) => {
    for (const id of ids) {
      const list = where.get(id);
      if (list) list.push(structure);
      else where.set(id, [structure]);
    }
  };
  note(delayed, 'delayed');
  note(ready, 'ready');
  note(prio, 'ready');
  note(active, 'active');
  note(dead, 'dead');
  note(done, 'done');
  return where;
}

function classify(
  id: string,
  hash: Record<string, string> | undefined,
  places: readonly Structure[],
): Problem[] {
  const problems: Problem[] = [];
  if (!hash) {
    for (const place of places) {
      problems.push({
        kind: 'missing-job',
        id,
        in: place,
        detail: `${place} holds id ${id}, which has no job hash`,
      });
    }
    return problems;
  }
  const state = hash.state ?? '';
  const missing = REQUIRED_FIELDS.filter((f) => hash[f] === undefined);
  if (missing.length > 0) {
    problems.push({ kind: 'bad-job', id, detail: `job ${id} is missing ${missing.join(', ')}` });
  } else if (!STRUCTURES.includes(state as Structure)) {
    problems.push({ kind: 'bad-job', id, detail: `job ${id} has unknown state "${state}"` });
  }
  if (places.length === 0) {
    problems.push({
      kind: 'orphan-job',
      id,
      state,
      detail: `job ${id} (${state || 'no state'}) is in no structure`,
    });
  } else if (places.length > 1) {
    problems.push({
      kind: 'duplicate',
      id,
      in: [...places],
      detail: `job ${id} is in ${places.join(' and ')}`,
    });
  } else if (places[0] !== state && STRUCTURES.includes(state as Structure)) {
    problems.push({
      kind: 'wrong-state',
      id,
      state,
      in: places[0] as Structure,
      detail: `job ${id} is in ${places[0]} but its state says ${state}`,
    });
  }
  return problems;
}

async function readHashes(
  client: Client,
  keys: QueueKeys,
  ids: readonly string[],
): Promise<Map<string, Record<string, string>>> {
  const hashes = new Map<string, Record<string, string>>();
  for (let i = 0; i < ids.length; i += 500) {
    const pipeline = client.pipeline();
    const chunk = ids.slice(i, i + 500);
    for (const id of chunk) pipeline.hgetall(keys.jobPrefix + id);
    const replies = (await pipeline.exec()) ?? [];
    chunk.forEach((id, j) => {
      const hash = replies[j]?.[1] as Record<string, string> | undefined;
      if (hash && Object.keys(hash).length > 0) hashes.set(id, hash);
    });
  }
  return hashes;
}

/**
 * Reads the whole queue without stopping it, so a job may move between two reads. Every id that
 * looks wrong in that first picture is looked at again atomically (locate.lua), and only what is
 * still wrong then is reported: a busy queue does not show false alarms.
 */
export async function diagnose(store: Store): Promise<{ jobs: number; problems: Problem[] }> {
  const { client, keys } = store;
  const [ids, where] = await Promise.all([scanJobIds(client, keys), readStructures(client, keys)]);
  const hashes = await readHashes(client, keys, ids);
  const suspects = new Set<string>();
  for (const [id, hash] of hashes) if (classify(id, hash, where.get(id) ?? []).length > 0) suspects.add(id);
  for (const id of where.keys()) if (!hashes.has(id)) suspects.add(id);

  const problems: Problem[] = [];
  for (const id of suspects) {
    const view = await store.locate(id);
    problems.push(...classify(id, view.hash ?? undefined, view.in));
  }
  return { jobs: hashes.size, problems };
}

/**
 * Repairs what diagnose found, one job at a time with repair.lua, which looks again and acts in
 * one step: safe while workers run. A job with missing fields is left to the worker that claims
 * it, which sends it to dead with the reason. Returns how many jobs were changed.
 */
export async function repair(store: Store, problems: readonly Problem[]): Promise<number> {
  let fixed = 0;
  const ids = new Set(problems.filter((p) => p.kind !== 'bad-job').map((p) => p.id));
  for (const id of ids) {
    if ((await store.repair(id)) !== 'ok') fixed++;
  }
  return fixed;
}
