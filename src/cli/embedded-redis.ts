import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { clientFromUrl } from '../redis/url.js';
import { isAlive } from '../supervisor/pid-file.js';
import { CliError, EXIT } from './output.js';

export const INSTALL_REDIS = [
  'install Redis and try again:',
  'Debian/Ubuntu `sudo apt-get install redis-server`,',
  'Fedora `sudo dnf install redis`,',
  'macOS `brew install redis`;',
  'or point dueq at a Redis you have with --redis redis://host:6379 (or REDIS_URL)',
].join(' ');

interface Record {
  pid: number;
  url: string;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Why a Redis does not answer PING (refused, timed out, wants a password…), or undefined when it does. */
export async function redisProblem(url: string, timeoutMs: number): Promise<string | undefined> {
  const client = clientFromUrl(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: timeoutMs,
    disconnectTimeout: 50,
  });
  let last: Error | undefined;
  client.on('error', (error: Error) => {
    last = error;
  });
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (error) {
    return (last ?? (error as Error)).message;
  } finally {
    client.disconnect();
  }
}

async function answers(url: string, timeoutMs: number): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: timeoutMs,
    // ioredis otherwise holds a closing socket, and with it the process, for 2 s.
    disconnectTimeout: 50,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/**
 * A redis-server of dueq's own, for a machine with no Redis running: data under the dueq data
 * directory with AOF on (a kill -9 loses no acknowledged write), bound to 127.0.0.1 on a free
 * port. Its address is written next to its data, so other dueq commands find and share it.
 * It runs in its own process group, so a Ctrl-C in the terminal does not stop it before the
 * workers have drained; whoever started it stops it.
 */
export class EmbeddedRedis {
  private constructor(
    readonly url: string,
    readonly dir: string,
    private readonly child: ChildProcess | undefined,
  ) {}

  private static recordFile(dataDir: string): string {
    return join(dataDir, 'redis', 'redis.json');
  }

  /** One started earlier by another dueq command and still answering, if any. */
  static async findRunning(dataDir: string): Promise<string | undefined> {
    try {
      const record = JSON.parse(readFileSync(EmbeddedRedis.recordFile(dataDir), 'utf8')) as Record;
      if (isAlive(record.pid) && (await answers(record.url, 1_000))) return record.url;
    } catch {
      // no record, or a stale one
    }
    return undefined;
  }

  static async start(dataDir: string): Promise<EmbeddedRedis> {
    const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
    if (probe.error)
      throw new CliError(
        `No Redis to connect to, and no redis-server to start one: ${INSTALL_REDIS}`,
        EXIT.failure,
      );
    const dir = join(dataDir, 'redis');
    mkdirSync(dir, { recursive: true });
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--appendonly',
        'yes',
        '--appendfsync',
        'everysec',
        '--save',
        '',
        '--logfile',
        'redis.log',
      ],
      { detached: true, stdio: 'ignore' },
    );
    const exited = new Promise<void>((_, reject) => {
      child.once('error', (error) =>
        reject(new CliError(`redis-server did not start: ${error.message}`, EXIT.failure)),
      );
      child.once('exit', (code) =>
        reject(
          new CliError(
            `redis-server exited at start with code ${code}; see ${join(dir, 'redis.log')}`,
            EXIT.failure,
          ),
        ),
      );
    });
    const up = (async () => {
      for (let i = 0; i < 200 && !(await answers(url, 200)); i++) await new Promise((r) => setTimeout(r, 25));
      if (!(await answers(url, 500)))
        throw new CliError(`redis-server on ${url} did not answer`, EXIT.failure);
    })();
    await Promise.race([up, exited]);
    exited.catch(() => {});
    writeFileSync(
      EmbeddedRedis.recordFile(dataDir),
      JSON.stringify({ pid: child.pid ?? 0, url } satisfies Record),
    );
    return new EmbeddedRedis(url, dir, child);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** SIGTERM (AOF is flushed), then waits for it to exit. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    let timer: NodeJS.Timeout | undefined;
    const gone = new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      timer = setTimeout(resolve, 10_000);
    });
    child.kill('SIGTERM');
    await gone;
    clearTimeout(timer);
    rmSync(join(this.dir, 'redis.json'), { force: true });
  }
}

export { answers as redisAnswers };
