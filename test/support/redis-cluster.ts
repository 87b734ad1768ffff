import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort, waitForPing } from './redis-server.js';

/**
 * A Redis Cluster of the tests' own on loopback: 3 masters and 3 replicas (AOF on), each a child
 * process of the test run with a free port and a free cluster-bus port, stopped by pid.
 */
export class RedisClusterSetup {
  private constructor(
    readonly ports: number[],
    private readonly nodes: ChildProcess[],
    private readonly dir: string,
  ) {}

  /** redis+cluster:// URL with every node as a seed. */
  get url(): string {
    return `redis+cluster://${this.ports.map((p) => `127.0.0.1:${p}`).join(',')}`;
  }

  static async start(): Promise<RedisClusterSetup> {
    const dir = mkdtempSync(join(tmpdir(), 'dueq-cluster-'));
    const ports: number[] = [];
    const nodes: ChildProcess[] = [];
    for (let i = 0; i < 6; i++) {
      const port = await freePort();
      const bus = await freePort();
      const nodeDir = join(dir, String(port));
      mkdirSync(nodeDir);
      // Each node's freePort is taken once it listens: ask for the next only after starting it.
      nodes.push(
        spawn(
          'redis-server',
          [
            '--port',
            String(port),
            '--cluster-port',
            String(bus),
            '--bind',
            '127.0.0.1',
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            'nodes.conf',
            '--cluster-node-timeout',
            '3000',
            '--appendonly',
            'yes',
            '--save',
            '',
            '--dir',
            nodeDir,
          ],
          { stdio: 'ignore' },
        ),
      );
      ports.push(port);
      await waitForPing(port, 'cluster node');
    }
    const setup = new RedisClusterSetup(ports, nodes, dir);
    execFileSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...ports.map((p) => `127.0.0.1:${p}`),
        '--cluster-replicas',
        '1',
        '--cluster-yes',
      ],
      { stdio: 'ignore' },
    );
    await setup.waitUntilStable();
    return setup;
  }

  /** Until every node says the cluster is ok and sees all three replicas. */
  async waitUntilStable(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      let stable = true;
      for (const port of this.ports) {
        const node = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 });
        node.on('error', () => {});
        try {
          await node.connect();
          const info = String(await node.cluster('INFO'));
          const list = String(await node.cluster('NODES'));
          stable &&= info.includes('cluster_state:ok') && (list.match(/slave/g) ?? []).length === 3;
        } catch {
          stable = false;
        } finally {
          node.disconnect();
        }
      }
      if (stable) return;
      if (Date.now() > deadline) throw new Error('the test cluster did not settle within 30 s');
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.nodes.map(async (node) => {
        if (node.exitCode !== null || node.signalCode !== null) return;
        const exited = new Promise((r) => node.once('exit', r));
        node.kill('SIGTERM');
        await exited;
      }),
    );
    rmSync(this.dir, { recursive: true, force: true });
  }
}
