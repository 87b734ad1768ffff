import { type Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, Scheduler, Worker } from '../../src/index.js';
import { clientFromUrl } from '../../src/redis/url.js';
import { uniqueName } from '../support/harness.js';
import { RedisClusterSetup } from '../support/redis-cluster.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A Redis Cluster of this file's own (3 masters, 3 replicas), so that failing over and moving
 * slots disturbs no other test. Queues spread over the masters; a failover and a slot migration
 * under load lose nothing.
 */
describe('Redis Cluster', { timeout: 120_000 }, () => {
  let setup: RedisClusterSetup;
  let admin: Cluster;

  beforeAll(async () => {
    setup = await RedisClusterSetup.start();
    admin = clientFromUrl(setup.url) as Cluster;
    await admin.ping();
  }, 60_000);

  afterAll(async () => {
    admin?.disconnect();
    for (const client of direct.values()) client.disconnect();
    await setup?.stop();
  });

  /** The master that serves a queue's slot now, and the slot. */
  async function ownerOf(queue: Queue): Promise<{ slot: number; port: number; id: string }> {
    const slot = Number(await admin.cluster('KEYSLOT', queue.keys.meta));
    const ranges = (await admin.cluster('SLOTS')) as unknown as [number, number, [string, number, string]][];
    const range = ranges.find(([from, to]) => slot >= from && slot <= to);
    if (!range) throw new Error(`no node serves slot ${slot}`);
    return { slot, port: range[2][1], id: range[2][2] };
  }

  /** A plain connection to one node (replicas included), for cluster admin commands. */
  const direct = new Map<number, Redis>();
  function node(port: number): Redis {
    let client = direct.get(port);
    if (!client) {
      client = new Redis(port, '127.0.0.1');
      direct.set(port, client);
    }
    return client;
  }

  /**
   * Jobs added while a worker and a scheduler run (single adds, 16 in flight, due over 0–400 ms),
   * with `disturb` called once a third of them ran. Resolves with how often each job ran.
   */
  async function underLoad(queue: Queue, total: number, disturb: () => Promise<void>) {
    const runs = new Map<number, number>();
    const worker = new Worker(
      queue,
      {
        n: async (job) =>
          void runs.set((job.data as { n: number }).n, (runs.get((job.data as { n: number }).n) ?? 0) + 1),
      },
      { concurrency: 16 },
    );
    worker.on('error', () => {});
    const scheduler = new Scheduler(queue);
    scheduler.on('error', () => {});
    await scheduler.start();
    let next = 0;
    const lane = async () => {
      while (next < total) {
        const n = next++;
        // A producer retries what a moving cluster refused; the same id makes it safe.
        for (let attempt = 0; ; attempt++) {
          try {
            await queue.add('n', { n }, { id: `job-${n}`, delay: n % 400 });
            break;
          } catch (error) {
            if (attempt > 100) throw error;
            await sleep(50);
          }
        }
      }
    };
    const producing = Promise.all(Array.from({ length: 16 }, lane));
    await expect.poll(() => runs.size, { timeout: 30_000 }).toBeGreaterThan(total / 3);
    await disturb();
    await producing;
    await expect.poll(() => runs.size, { timeout: 60_000 }).toBe(total);
    await worker.close();
    await scheduler.close();
    return runs;
  }

  it('spreads queues over the masters', async () => {
    const queues = Array.from(
      { length: 30 },
      () => new Queue(uniqueName('spread'), { connection: setup.url }),
    );
    try {
      await Promise.all(queues.map((q) => q.add('x', null)));
      const owners = new Set((await Promise.all(queues.map(ownerOf))).map((o) => o.port));
      expect(owners.size).toBe(3);
    } finally {
      await Promise.all(queues.map((q) => q.close()));
    }
  });

  it('puts the shards of a sharded queue on different masters, and one worker drains them all', async () => {
    const queue = new Queue(uniqueName('sharded'), { connection: setup.url, shards: 6 });
    try {
      const owners = new Set((await Promise.all(queue.shards.map(ownerOf))).map((o) => o.port));
      expect(owners.size).toBeGreaterThan(1);
      const seen = new Set<number>();
      const worker = new Worker(queue, { n: async (job) => void seen.add((job.data as { n: number }).n) });
      await queue.addBulk(Array.from({ length: 1_200 }, (_, n) => ({ type: 'n', data: { n } })));
      await expect.poll(() => seen.size, { timeout: 20_000 }).toBe(1_200);
      await worker.close();
      expect((await queue.doctor()).ok).toBe(true);
    } finally {
      await queue.close();
    }
  });

  it('loses nothing when the master of a busy queue fails over to its replica', async () => {
    const queue = new Queue(uniqueName('failover'), { connection: setup.url });
    const before = await ownerOf(queue);
    const runs = await underLoad(queue, 3_000, async () => {
      const replicas = (await node(before.port).cluster('REPLICAS', before.id)) as string[];
      const replicaPort = Number(/:(\d+)@/.exec(replicas[0] ?? '')?.[1]);
      await node(replicaPort).cluster('FAILOVER');
      await expect.poll(async () => (await ownerOf(queue)).port, { timeout: 20_000 }).toBe(replicaPort);
    });
    expect((await ownerOf(queue)).port).not.toBe(before.port);
    expect([...runs.values()].filter((n) => n > 1)).toEqual([]);
    expect((await queue.doctor()).ok).toBe(true);
    await queue.close();
    await setup.waitUntilStable();
  });

  it('loses nothing when the slot of a busy queue migrates to another master', async () => {
    const queue = new Queue(uniqueName('migrate'), { connection: setup.url });
    const from = await ownerOf(queue);
    const masters = (await admin.cluster('SLOTS')) as unknown as [number, number, [string, number, string]][];
    const target = masters.map((r) => r[2]).find(([, port]) => port !== from.port) as [
      string,
      number,
      string,
    ];
    const [, toPort, toId] = target;
    const runs = await underLoad(queue, 3_000, async () => {
      const source = node(from.port);
      const dest = node(toPort);
      await dest.cluster('SETSLOT', from.slot, 'IMPORTING', from.id);
      await source.cluster('SETSLOT', from.slot, 'MIGRATING', toId);
      // Keys move in small batches while jobs keep flowing; scripts meanwhile get TRYAGAIN, ASK
      // or a refusal before their first write, and are retried.
      for (;;) {
        const keys = (await source.cluster('GETKEYSINSLOT', from.slot, 50)) as string[];
        if (keys.length === 0) break;
        await source.migrate('127.0.0.1', toPort, '', 0, 5_000, 'KEYS', ...keys);
        await sleep(5);
      }
      for (const [, port] of masters.map((r) => r[2]))
        await node(port).cluster('SETSLOT', from.slot, 'NODE', toId);
      await expect.poll(async () => (await ownerOf(queue)).port, { timeout: 20_000 }).toBe(toPort);
    });
    expect(runs.size).toBe(3_000);
    expect((await queue.doctor()).ok).toBe(true);
    await queue.close();
  });
});
