import { afterEach, describe, expect, it } from 'vitest';
import { NotReplicatedError, Queue, Worker } from '../../src/index.js';
import { RedisSentinelSetup } from '../support/redis-sentinel.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Redis behind Sentinel: dueq connects with a redis+sentinel:// URL and follows failovers. Adds
 * are acknowledged by the master alone unless the queue asks for `durability`: then a failover
 * that promotes a replica which had fallen behind loses no acknowledged add.
 */
describe('Redis Sentinel', { timeout: 90_000 }, () => {
  const setups: RedisSentinelSetup[] = [];
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close().catch(() => {});
    await Promise.all(setups.splice(0).map((s) => s.stop()));
  });

  async function sentinel(): Promise<RedisSentinelSetup> {
    const setup = await RedisSentinelSetup.start();
    setups.push(setup);
    return setup;
  }

  it('runs jobs through a redis+sentinel:// URL across a failover', async () => {
    const setup = await sentinel();
    const queue = new Queue('sentinel-run', { connection: setup.url });
    const seen = new Set<number>();
    const worker = new Worker(queue, { n: async (job) => void seen.add((job.data as { n: number }).n) });
    worker.on('error', () => {});
    closers.push(
      () => queue.close(),
      () => worker.close(),
    );
    await queue.addBulk(Array.from({ length: 200 }, (_, n) => ({ type: 'n', data: { n } })));
    await expect.poll(() => seen.size, { timeout: 10_000 }).toBe(200);
    const before = await setup.masterPort();
    await setup.master.kill();
    await expect.poll(() => setup.masterPort(), { timeout: 20_000, interval: 200 }).not.toBe(before);
    // The same queue and worker carry on against the promoted replica.
    for (let n = 200; n < 300; n++) {
      for (;;) {
        try {
          await queue.add('n', { n }, { id: `after-${n}` });
          break;
        } catch {
          await sleep(100);
        }
      }
    }
    await expect.poll(() => seen.size, { timeout: 20_000 }).toBe(300);
  });

  /**
   * The replica stops taking the stream for a while (as in a partition), the master dies, the
   * replica comes back and is promoted. Returns how many adds were acknowledged, and how many of
   * those the new master does not have.
   */
  async function drill(
    durability: boolean,
  ): Promise<{ acknowledged: number; lost: number; refused: number }> {
    const setup = await sentinel();
    const queue = new Queue(`drill-${durability}`, {
      connection: setup.url,
      ...(durability ? { durability: { replicas: 1, timeoutMs: 300 } } : {}),
    });
    closers.push(() => queue.close());
    const acknowledged: string[] = [];
    let refused = 0;
    let running = true;
    const producer = (async () => {
      for (let n = 0; running; n++) {
        const id = `j-${n}`;
        try {
          await queue.add('x', { n }, { id, delay: 3_600_000 });
          acknowledged.push(id);
        } catch (error) {
          if (error instanceof NotReplicatedError) refused++;
          await sleep(20);
        }
      }
    })();
    await sleep(500);
    process.kill(setup.replica.pid as number, 'SIGSTOP');
    await sleep(1_500);
    await setup.master.kill();
    process.kill(setup.replica.pid as number, 'SIGCONT');
    await expect.poll(() => setup.masterPort(), { timeout: 30_000, interval: 250 }).toBe(setup.replica.port);
    // The old master comes back; the sentinels make it the new master's replica.
    await setup.master.restart();
    // Adds go on against the new master for a moment.
    const count = acknowledged.length;
    await expect.poll(() => acknowledged.length, { timeout: 30_000 }).toBeGreaterThan(count + 20);
    running = false;
    await producer;
    let lost = 0;
    for (const id of acknowledged) if ((await queue.getJob(id)) === null) lost++;
    return { acknowledged: acknowledged.length, lost, refused };
  }

  it('with durability: { replicas: 1 }, a failover loses no acknowledged add', async () => {
    const result = await drill(true);
    console.log(`sentinel failover with durability: ${JSON.stringify(result)}`);
    expect(result.lost).toBe(0);
    // While the replica lagged, adds were refused rather than acknowledged.
    expect(result.refused).toBeGreaterThan(0);
  });

  it('without durability, the adds acknowledged while the replica lagged are lost', async () => {
    const result = await drill(false);
    console.log(`sentinel failover without durability: ${JSON.stringify(result)}`);
    expect(result.refused).toBe(0);
    expect(result.lost).toBeGreaterThan(0);
  });
});
