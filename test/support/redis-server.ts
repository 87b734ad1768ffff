import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/**
 * A real redis-server of the tests' own: a free port on 127.0.0.1, a fresh temp dir, stopped by
 * pid. Tests never depend on a server that happens to be up, and may kill and restart this one.
 */
export class RedisServer {
  private child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    readonly dir: string,
    private readonly extraArgs: readonly string[],
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** `args` are extra redis-server flags, e.g. ['--appendonly', 'yes']. */
  static async start(args: readonly string[] = []): Promise<RedisServer> {
    for (let attempt = 1; ; attempt++) {
      const server = new RedisServer(await freePort(), mkdtempSync(join(tmpdir(), 'dueq-redis-')), args);
      try {
        await server.launch();
        return server;
      } catch (error) {
        rmSync(server.dir, { recursive: true, force: true });
        if (attempt >= 5) throw error;
      }
    }
  }

  private async launch(): Promise<void> {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--dir',
        this.dir,
        '--save',
        '',
        '--appendonly',
        'no',
        ...this.extraArgs,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child = child;
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      if (output.length < 20_000) output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      if (output.length < 20_000) output += chunk.toString();
    });
    const exited = new Promise<never>((_, reject) => {
      child.once('error', (err) =>
        reject(
          new Error(`redis-server did not start: ${err.message}. Install it: apt-get install redis-server`),
        ),
      );
      child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}:\n${output}`)));
    });
    await Promise.race([exited, waitForPing(this.port, 'redis-server')]);
  }

  /** SIGKILL, as a crash would; data since the last fsync may be lost without AOF. */
  async kill(): Promise<void> {
    await this.signal('SIGKILL');
  }

  /** Starts it again on the same port and dir (after kill or stop). */
  async restart(): Promise<void> {
    await this.launch();
  }

  async stop(): Promise<void> {
    await this.signal('SIGTERM');
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async signal(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  }
}

/** Resolves once a Redis on this port answers PING; throws after 10 s. */
export async function waitForPing(port: number, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const client = new Redis(port, '127.0.0.1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    client.on('error', () => {});
    try {
      await client.connect();
      if ((await client.ping()) === 'PONG') return;
    } catch {
      // not up yet
    } finally {
      client.disconnect();
    }
    if (Date.now() > deadline) throw new Error(`${what} on port ${port} did not answer within 10 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
