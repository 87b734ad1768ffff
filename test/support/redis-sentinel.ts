import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort, RedisServer } from './redis-server.js';

export const MASTER_NAME = 'mymaster';

/**
 * A master, one replica and three sentinels on loopback (AOF on), each a child process of the
 * test run, stopped by pid. Sentinels call the master down after one second unanswered.
 */
export class RedisSentinelSetup {
  private constructor(
    readonly master: RedisServer,
    readonly replica: RedisServer,
    private readonly sentinels: ChildProcess[],
    readonly sentinelPorts: number[],
    private readonly dir: string,
  ) {}

  /** redis+sentinel:// URL of the setup. */
  get url(): string {
    return `redis+sentinel://${this.sentinelPorts.map((p) => `127.0.0.1:${p}`).join(',')}/${MASTER_NAME}`;
  }

  static async start(): Promise<RedisSentinelSetup> {
    const aof = ['--appendonly', 'yes', '--appendfsync', 'everysec'];
    const master = await RedisServer.start(aof);
    const replica = await RedisServer.start([...aof, '--replicaof', '127.0.0.1', String(master.port)]);
    const dir = mkdtempSync(join(tmpdir(), 'dueq-sentinel-'));
    const ports: number[] = [];
    const sentinels: ChildProcess[] = [];
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const conf = join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${master.port} 2`,
          `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
          `sentinel failover-timeout ${MASTER_NAME} 10000`,
          `sentinel parallel-syncs ${MASTER_NAME} 1`,
          '',
        ].join('\n'),
      );
      sentinels.push(spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore' }));
      ports.push(port);
    }
    const setup = new RedisSentinelSetup(master, replica, sentinels, ports, dir);
    await setup.ready(master.port, replica.port);
    return setup;
  }

  /** Until the replica is in sync and every sentinel knows the others and the replica. */
  private async ready(masterPort: number, replicaPort: number): Promise<void> {
    const deadline = Date.now() + 30_000;
    const replica = new Redis(replicaPort, '127.0.0.1', { lazyConnect: true });
    const sentinels = this.sentinelPorts.map((p) => new Redis(p, '127.0.0.1', { lazyConnect: true }));
    try {
      for (;;) {
        if (Date.now() > deadline) throw new Error('the sentinel setup did not come up within 30 s');
        try {
          const linkUp = /master_link_status:up/.test(await replica.info('replication'));
          let known = true;
          for (const s of sentinels) {
            const master = (await s.call('SENTINEL', 'MASTER', MASTER_NAME)) as string[];
            const others = Number(master[master.indexOf('num-other-sentinels') + 1]);
            const replicas = (await s.call('SENTINEL', 'REPLICAS', MASTER_NAME)) as string[][];
            const seesReplica = replicas.some((r) => r[r.indexOf('port') + 1] === String(replicaPort));
            known &&=
              others === 2 && seesReplica && master[master.indexOf('port') + 1] === String(masterPort);
          }
          if (linkUp && known) return;
        } catch {
          // not up yet
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      replica.disconnect();
      for (const s of sentinels) s.disconnect();
    }
  }

  /** The port of the server the sentinels call master now. */
  async masterPort(): Promise<number> {
    const s = new Redis(this.sentinelPorts[0] as number, '127.0.0.1');
    try {
      const [, port] = (await s.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME)) as [string, string];
      return Number(port);
    } finally {
      s.disconnect();
    }
  }

  async stop(): Promise<void> {
    for (const s of this.sentinels) {
      if (s.exitCode === null && s.signalCode === null) {
        const exited = new Promise((r) => s.once('exit', r));
        s.kill('SIGTERM');
        await exited;
      }
    }
    await Promise.all([this.master.stop(), this.replica.stop()]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
