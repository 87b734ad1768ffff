import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, type QueueOptions, Scheduler, Worker } from '../../src/index.js';
import { dueq, FIXTURES, RunningSupervisor, readRecords, tempDir } from '../support/cli.js';
import { uniqueName } from '../support/harness.js';
import { freePort, RedisServer } from '../support/redis-server.js';
import { makeCertificates, type TestCertificates } from '../support/tls.js';

const SECRET = 's3cret-Pa55';

/**
 * TLS, ACL users, and what never happens to job data and passwords. One redis-server with a TLS
 * port beside its plain one, and an ACL user limited to dueq's keys and channels.
 */
describe('security', () => {
  let server: RedisServer;
  let admin: Redis;
  let certs: TestCertificates;
  let tlsPort: number;
  let userUrl: string;

  beforeAll(async () => {
    certs = makeCertificates();
    tlsPort = await freePort();
    server = await RedisServer.start([
      '--tls-port',
      String(tlsPort),
      '--tls-cert-file',
      certs.cert,
      '--tls-key-file',
      certs.key,
      '--tls-ca-cert-file',
      certs.ca,
      '--tls-auth-clients',
      'no',
    ]);
    admin = new Redis(server.url);
    // Least privilege: dueq's keys and channels, no dangerous commands (CONFIG, KEYS, FLUSHALL…).
    await admin.call(
      'ACL',
      'SETUSER',
      'app',
      'on',
      `>${SECRET}`,
      '~dueq:*',
      'resetchannels',
      '&dueq:*',
      '+@all',
      '-@dangerous',
    );
    userUrl = `redis://app:${SECRET}@127.0.0.1:${server.port}`;
  });

  afterAll(async () => {
    admin?.disconnect();
    await server?.stop();
  });

  async function runOne(connection: QueueOptions['connection']) {
    const queue = new Queue(uniqueName('s'), { connection });
    const scheduler = new Scheduler(queue, { connection });
    const got: unknown[] = [];
    const worker = new Worker(queue, { echo: async (job) => void got.push(job.data) }, { connection });
    try {
      await scheduler.start();
      await queue.add('echo', { now: 1 });
      await queue.add('echo', { later: 1 }, { delay: 200 });
      await expect.poll(() => got, { timeout: 10_000 }).toEqual([{ now: 1 }, { later: 1 }]);
      expect((await queue.doctor()).ok).toBe(true);
    } finally {
      await worker.close();
      await scheduler.close();
      await queue.close();
    }
  }

  it('runs jobs over TLS', async () => {
    await runOne({ host: '127.0.0.1', port: tlsPort, tls: { ca: readFileSync(certs.ca) } });
  });

  it('takes a rediss:// URL on the command line, trusting the CA given to Node', async () => {
    const result = await dueq(['--redis', `rediss://127.0.0.1:${tlsPort}`, 'stats'], {
      cwd: tempDir(),
      env: { NODE_EXTRA_CA_CERTS: certs.ca },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('runs jobs as an ACL user that may touch nothing but dueq keys and channels', async () => {
    await runOne(userUrl);
  });

  it('says a wrong password in one line, without the password', async () => {
    const result = await dueq(['--redis', `redis://app:wrong-${SECRET}@127.0.0.1:${server.port}`, 'stats'], {
      cwd: tempDir(),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^dueq: cannot reach Redis at redis:\/\/app:\*\*\*@127\.0\.0\.1:\d+: WRONGPASS.*\n$/,
    );
    expect(result.stderr).not.toContain(SECRET);
  });

  it('never logs the password: not dueq start, not its worker processes', async () => {
    const queue = uniqueName('s');
    const log = join(tempDir(), 'records.log');
    const supervisor = new RunningSupervisor(
      ['--redis', userUrl, 'start', '--jobs', join(FIXTURES, 'jobs'), '--queue', queue, '--workers', '2'],
      tempDir(),
    );
    const producer = new Queue(queue, { connection: userUrl });
    try {
      await supervisor.started();
      await producer.add('record', { log });
      await expect.poll(() => readRecords(log).length, { timeout: 10_000 }).toBe(2);
      await producer.add('no-such-type', null, { maxAttempts: 1 });
      await supervisor.waitForMessage(/no handler|failed|dead/i);
    } finally {
      await producer.close();
      supervisor.signal('SIGTERM');
      await supervisor.exited;
    }
    const output = supervisor.output.join('\n');
    expect(output).toContain('redis://app:***@127.0.0.1');
    expect(output).not.toContain(SECRET);
  });

  it('never evaluates job data: it is data, whatever it looks like', async () => {
    const queue = new Queue(uniqueName('s'), { connection: server.url });
    const got: unknown[] = [];
    const worker = new Worker(queue, { x: async (job) => void got.push(job.data) });
    const hostile = JSON.parse(
      '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "code": "process.exit(1)", "lua": "redis.call(\'FLUSHALL\')"}',
    );
    try {
      await queue.add('x', hostile);
      await expect.poll(() => got.length).toBe(1);
      expect(got[0]).toEqual(hostile);
      expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
      expect(await admin.dbsize()).toBeGreaterThan(0);
    } finally {
      await worker.close();
      await queue.close();
    }
    // And the code has no way to: no eval, Function constructor or vm anywhere in src/.
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.(ts|js)$/.test(name) && !path.includes('/dashboard/public/')) files.push(path);
      }
    };
    walk(new URL('../../src/', import.meta.url).pathname);
    for (const file of files) {
      const source = readFileSync(file, 'utf8');
      expect(source, file).not.toMatch(/\beval\s*\(|new\s+Function\s*\(|from 'node:vm'/);
    }
  });
});
