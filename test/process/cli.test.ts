import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Queue, Worker } from '../../src/index.js';
import { isAlive } from '../../src/supervisor/pid-file.js';
import { dueq, FIXTURES, RunningSupervisor, readRecords, tempDir } from '../support/cli.js';
import { redisUrl, uniqueName } from '../support/harness.js';

const cwd = tempDir();
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
const run = (args: string[], env?: NodeJS.ProcessEnv) => dueq(['--redis', redisUrl(), ...args], { cwd, env });
const json = async (args: string[]) => {
  const result = await run(['--json', ...args]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
};

describe('dueq commands', () => {
  const queues: Queue[] = [];
  afterAll(async () => {
    await Promise.all(queues.map((q) => q.close()));
  });
  const queue = () => {
    const q = new Queue(uniqueName('c'), { connection: redisUrl() });
    queues.push(q);
    return q;
  };

  it('adds, shows, runs now and cancels a job', async () => {
    const q = queue();
    const added = await run([
      'add',
      q.name,
      'order.close',
      '{"orderId":1001}',
      '--delay',
      '30m',
      '--key',
      'close:1001',
    ]);
    expect(added.code).toBe(0);
    const id = /^added job (\S+) to /.exec(added.stdout)?.[1] as string;
    expect(added.stdout).toMatch(
      new RegExp(
        `^added job ${escapeRegExp(id)} to ${q.name}: order.close, due \\S+ \\(in (29m 5\\ds|30m 0s)\\)\\n$`,
      ),
    );
    const shown = await run(['show', q.name, id]);
    expect(shown.stdout).toContain('order.close');
    expect(shown.stdout).toContain('{"orderId":1001}');
    expect(shown.stdout).toMatch(/attempt +0 of 3/);
    expect(await json(['show', q.name, id])).toMatchObject({
      id,
      state: 'delayed',
      data: { orderId: 1001 },
      key: 'close:1001',
    });
    expect((await run(['run-now', q.name, id])).stdout).toBe(`job ${id} is ready to run now\n`);
    expect(await json(['cancel', q.name, id])).toEqual({ id, result: 'removed' });
    const again = await run(['cancel', q.name, id]);
    expect(again.code).toBe(3);
    expect(again.stderr).toBe(`dueq: No job "${id}" in queue "${q.name}" (it may have run already)\n`);
  });

  it('adds with --json, --at, --priority and --max-attempts', async () => {
    const q = queue();
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const added = await json([
      'add',
      q.name,
      'report',
      '--at',
      at,
      '--priority',
      '5',
      '--max-attempts',
      '7',
      '--id',
      'report-1',
    ]);
    expect(added).toMatchObject({ id: 'report-1', queue: q.name, state: 'delayed', dueAt: Date.parse(at) });
    expect(await q.getJob('report-1')).toMatchObject({ priority: 5, maxAttempts: 7, data: null });
  });

  it.each([
    [['add', 'q', 't', '{bad json'], 2, /^dueq: the job data is not valid JSON \(/],
    [
      ['add', 'q', 't', '--delay', 'soonish'],
      2,
      /^dueq: Expected `delay` to be a duration like 1500, '30s', '30m' or '2h', got "soonish" \(string\)$/,
    ],
    [['add', 'q', 't', '--at', 'tomorrow'], 2, /^dueq: Expected `--at` to be an ISO date/],
    [
      ['add', 'q', 't', '--priority', '-1'],
      2,
      /^dueq: Expected `--priority` to be a whole number from 0 to 1000000, got "-1"$/,
    ],
    [
      ['add', 'q', 't', '--delay', '5s', '--at', '2030-01-01T00:00:00Z'],
      2,
      /error: option '--delay <duration>' cannot be used with option '--at <iso>'/,
    ],
    [['add', 'bad name', 't'], 2, /^dueq: Expected queue name/],
    [['show', 'q', 'no-such-job'], 3, /^dueq: No job "no-such-job" in queue "q"$/],
    [['run-now', 'q', 'no-such-job'], 3, /^dueq: No job "no-such-job" in queue "q"$/],
    [['dead', 'bury', 'q'], 1, /^dueq: unknown dead action "bury"/],
    [['stats', '--interval', '1ms'], 2, /^dueq: --interval must be at least 100ms$/],
    [['frobnicate'], 2, /error: unknown command 'frobnicate'/],
  ])('%j exits %i with one clear line', async (args, code, message) => {
    const result = await run(args as string[]);
    expect(result.code).toBe(code);
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toMatch(message);
    expect(lines.filter((l) => /^\s+at /.test(l))).toEqual([]);
  });

  it('prints the stack with --verbose', async () => {
    const result = await run(['--verbose', 'show', 'q', 'missing']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^dueq: No job "missing"/);
    expect(result.stderr).toMatch(/\n\s+at /);
  });

  it('works the dead-letter queue: list, replay, remove, purge', async () => {
    const q = queue();
    let failing = true;
    const worker = new Worker(q, {
      pay: async (job) => {
        if (failing) throw new Error(`declined ${job.data}`);
      },
    });
    worker.on('error', () => {});
    for (let i = 0; i < 4; i++) await q.add('pay', i, { maxAttempts: 1 });
    await expect.poll(async () => (await q.counts()).dead).toBe(4);
    const listed = await json(['dead', 'list', q.name, '--limit', '2']);
    expect(listed.total).toBe(4);
    expect(listed.jobs).toHaveLength(2);
    const human = await run(['dead', 'list', q.name]);
    expect(human.stdout).toMatch(/declined \d/);
    expect(human.stdout).toMatch(/1–4 of 4 dead jobs, newest first/);
    failing = false;
    expect(await json(['dead', 'replay', q.name, '--limit', '1'])).toEqual({ replayed: 1, left: 3 });
    await expect.poll(async () => (await q.counts()).done).toBe(1);
    const oldest = listed.jobs[1].id as string;
    expect((await run(['dead', 'remove', q.name, oldest])).stdout).toBe(`removed dead job ${oldest}\n`);
    const refused = await run(['dead', 'purge', q.name]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/purge deletes all 2 dead jobs of .* for good; run it again with --yes/);
    expect(await json(['dead', 'purge', q.name, '--yes'])).toEqual({ purged: 2 });
    await worker.close();
  });

  it('shows counts and rates with stats', async () => {
    const q = queue();
    await q.addBulk(Array.from({ length: 5 }, () => ({ type: 'x', opts: { delay: 60_000 } })));
    const one = await json(['stats', q.name, '--interval', '200ms']);
    expect(one).toMatchObject({
      queue: q.name,
      delayed: 5,
      ready: 0,
      dead: 0,
      totals: { added: 5 },
      rates: { added: 0 },
    });
    const all = await json(['stats', '--interval', '200ms']);
    expect(all.map((s: { queue: string }) => s.queue)).toContain(q.name);
    const human = await run(['stats', q.name, '--interval', '200ms']);
    expect(human.stdout).toMatch(/^queue +delayed +ready +active +dead +done +added\/s +done\/s +failed\/s/m);
    expect(human.stdout).toMatch(new RegExp(`^${q.name} +5 +0 +0 +0 +0 `, 'm'));
  });

  it('refreshes stats with --watch until Ctrl-C', async () => {
    const q = queue();
    await q.add('x');
    const watching = new RunningSupervisor(
      ['--redis', redisUrl(), 'stats', q.name, '--watch', '--interval', '200ms'],
      cwd,
    );
    await expect
      .poll(() => watching.output.filter((l) => l.startsWith(q.name)).length, { timeout: 5_000 })
      .toBeGreaterThanOrEqual(3);
    watching.signal('SIGINT');
    expect((await watching.exited).code).toBe(0);
  });

  it('sets, lists and removes schedules', async () => {
    const q = queue();
    const set = await run([
      'schedule',
      'set',
      q.name,
      'nightly',
      '--cron',
      '0 2 * * *',
      '--tz',
      'Asia/Shanghai',
      '--type',
      'report',
      '--data',
      '{"k":1}',
    ]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(
      /^schedule nightly set \(version 1\): cron 0 2 \* \* \* \(Asia\/Shanghai\) → report; next \S+T18:00:00\.000Z \(in /,
    );
    await run(['schedule', 'set', q.name, 'tick', '--every', '5m', '--type', 'tick', '--limit', '3']);
    const again = await json([
      'schedule',
      'set',
      q.name,
      'nightly',
      '--cron',
      '0 3 * * *',
      '--type',
      'report',
    ]);
    expect(again).toMatchObject({ name: 'nightly', version: 2, cron: '0 3 * * *' });
    const listed = await json(['schedule', 'list', q.name]);
    expect(listed.map((s: { name: string }) => s.name)).toEqual(['nightly', 'tick']);
    const human = await run(['schedule', 'list', q.name]);
    expect(human.stdout).toMatch(
      /^tick +every 5m 0s +tick +\S+ \(in 4m 5\ds\)|^tick +every 5m 0s +tick +\S+ \(in 5m 0s\)/m,
    );
    expect(human.stdout).toMatch(/0\/3/);
    const bad = await run(['schedule', 'set', q.name, 'broken', '--cron', '61 * * * *', '--type', 'x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^dueq: Expected `cron` to be a cron pattern like '0 2 \* \* \*': /);
    expect((await run(['schedule', 'remove', q.name, 'nightly'])).stdout).toBe(
      'removed schedule nightly and its occurrences that had not started\n',
    );
    const gone = await run(['schedule', 'remove', q.name, 'nightly']);
    expect(gone.code).toBe(3);
    expect(gone.stderr).toBe(`dueq: No schedule "nightly" in queue "${q.name}"\n`);
  });

  it('doctor finds damage (exit 5) and --repair fixes it', async () => {
    const q = queue();
    const id = await q.add('x', null, { delay: 60_000 });
    expect((await run(['doctor', q.name])).stdout).toBe(`ok  ${q.name}: 1 jobs, each in exactly one state\n`);
    await q.client.zrem(q.keys.delayed, id);
    const found = await run(['doctor', q.name]);
    expect(found.code).toBe(5);
    expect(found.stdout).toContain(`orphan-job   job ${id} (delayed) is in no structure`);
    const repaired = await run(['doctor', q.name, '--repair']);
    expect(repaired.code).toBe(0);
    expect(repaired.stdout).toMatch(/repaired 1; now clean/);
    expect((await q.getJob(id))?.state).toBe('ready');
  });

  it('bench measures produce, promote and consume apart and together, and leaves no keys', async () => {
    const report = await json(['bench', '--jobs', '2000', '--concurrency', '32']);
    expect(report.stages.map((s: { stage: string }) => s.stage)).toEqual([
      'produce',
      'promote',
      'consume',
      'end-to-end',
    ]);
    for (const stage of report.stages) {
      expect(stage.jobsPerSecond, stage.stage).toBeGreaterThan(0);
      expect(stage.ms, stage.stage).toBeGreaterThan(0);
    }
    const [produce, promote, consume, endToEnd] = report.stages;
    expect(endToEnd.lateness.max).toBeGreaterThanOrEqual(endToEnd.lateness.p99);
    const slowest = [produce, promote, consume].sort((a, b) => a.jobsPerSecond - b.jobsPerSecond)[0];
    expect(report.ceiling).toEqual({ stage: slowest.stage, jobsPerSecond: slowest.jobsPerSecond });
    const admin = new Queue(report.queue, { connection: redisUrl() });
    queues.push(admin);
    expect(await admin.client.keys(`*${report.queue}*`)).toEqual([]);
  });

  it('bench refuses a job count too small to measure', async () => {
    const result = await run(['bench', '--jobs', '10']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^dueq: .*--jobs.*\n$/);
  });
});

describe('an embedded redis-server when there is no Redis', () => {
  // Point the local probe at a closed port, and give no --redis or REDIS_URL.
  const env = { DUEQ_LOCAL_REDIS_URL: 'redis://127.0.0.1:1', REDIS_URL: '' };
  const bare = (args: string[], dir: string, extra: NodeJS.ProcessEnv = {}) =>
    dueq(args, { cwd: dir, env: { ...env, ...extra } });

  it('is started, said so, and keeps its data (AOF) for the next command', async () => {
    const dir = tempDir();
    const added = await bare(['add', 'orders', 'order.close', '{"orderId":7}', '--delay', '1h'], dir);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toMatch(
      /No Redis at redis:\/\/127\.0\.0\.1:1: started an embedded redis-server on redis:\/\/127\.0\.0\.1:\d+ \(pid \d+, AOF on, data in .*\.dueq\/redis\)/,
    );
    const id = /^added job (\S+)/.exec(added.stdout)?.[1] as string;
    const shown = await bare(['--json', 'show', 'orders', id], dir);
    expect(JSON.parse(shown.stdout)).toMatchObject({ id, state: 'delayed', data: { orderId: 7 } });
    expect(existsSync(join(dir, '.dueq/redis/appendonlydir'))).toBe(true);
  });

  it('serves `dueq start` and the commands run beside it, and stops with it', async () => {
    const dir = tempDir();
    const log = join(dir, 'records.log');
    const supervisor = new RunningSupervisor(
      ['start', '--jobs', join(FIXTURES, 'jobs'), '--queue', 'orders', '--workers', '1'],
      dir,
      env,
    );
    try {
      const note = await supervisor.waitForMessage(/started an embedded redis-server/);
      await supervisor.started();
      const redisPid = JSON.parse(readFileSync(join(dir, '.dueq/redis/redis.json'), 'utf8')).pid as number;
      expect(note.msg).toContain(`pid ${redisPid}`);
      const added = await bare(['add', 'orders', 'record', JSON.stringify({ log })], dir);
      expect(added.stderr).toBe('');
      await expect.poll(() => readRecords(log).length, { timeout: 10_000 }).toBe(2);
      supervisor.signal('SIGINT');
      expect((await supervisor.exited).code).toBe(0);
      expect(isAlive(redisPid)).toBe(false);
    } finally {
      await supervisor.kill();
    }
  });

  it('says how to get redis-server when there is none', async () => {
    const result = await bare(['add', 'orders', 'x'], tempDir(), { PATH: '/nonexistent' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^dueq: No Redis to connect to, and no redis-server to start one: install Redis and try again: Debian\/Ubuntu `sudo apt-get install redis-server`/,
    );
  });
});
