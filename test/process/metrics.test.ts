import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Queue } from '../../src/index.js';
import { dueq, FIXTURES, RunningSupervisor, readRecords, tempDir } from '../support/cli.js';
import { redisUrl, uniqueName } from '../support/harness.js';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function value(metrics: string, line: string): number | undefined {
  const found = metrics.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

function expectPromtoolAccepts(metrics: string): void {
  const promtool = spawnSync('promtool', ['check', 'metrics'], { input: metrics, encoding: 'utf8' });
  expect(
    promtool.error,
    'promtool is installed (Debian package prometheus; .ci/run installs it)',
  ).toBeUndefined();
  expect(promtool.stdout + promtool.stderr).toBe('');
  expect(promtool.status).toBe(0);
}

describe('dueq start: metrics and logs', () => {
  const running: RunningSupervisor[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((s) => s.kill()));
  });

  /** `dueq start` serving `name` with metrics on a free port; `extra` adds flags. */
  async function startWithMetrics(name: string, extra: string[]) {
    const cwd = tempDir();
    const port = await freePort();
    const args = ['--redis', redisUrl(), 'start', '--jobs', join(FIXTURES, 'jobs'), '--queue', name];
    const supervisor = new RunningSupervisor([...args, ...extra, '--metrics-port', String(port)], cwd);
    running.push(supervisor);
    return { supervisor, port, log: join(cwd, 'records.log') };
  }

  it('serves Prometheus metrics that promtool accepts, and logs one line per finished job', async () => {
    const name = uniqueName('m');
    const queue = new Queue(name, { connection: redisUrl() });
    const { supervisor, port, log } = await startWithMetrics(name, ['--workers', '2']);
    await supervisor.started();
    await queue.addBulk([1, 2, 3].map((n) => ({ type: 'record', data: { log, n } })));
    const unknown = await queue.add('no.such.type', null, { maxAttempts: 1 });
    await queue.add('record', { log, n: 4 }, { delay: '1h' });
    await expect
      .poll(() => readRecords(log).filter((r) => r.phase === 'end').length, { timeout: 10_000 })
      .toBe(3);
    await expect.poll(async () => (await queue.getJob(unknown))?.state).toBe('dead');

    // Worker processes report their histograms once a second.
    let metrics = '';
    await expect
      .poll(
        async () => {
          metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
          return value(
            metrics,
            `dueq_job_duration_seconds_count{queue="${name}",type="record",outcome="completed"}`,
          );
        },
        { timeout: 5_000 },
      )
      .toBe(3);
    expect(value(metrics, `dueq_jobs{queue="${name}",state="delayed"}`)).toBe(1);
    expect(value(metrics, `dueq_jobs{queue="${name}",state="dead"}`)).toBe(1);
    expect(value(metrics, `dueq_jobs{queue="${name}",state="ready"}`)).toBe(0);
    expect(value(metrics, `dueq_jobs_added_total{queue="${name}"}`)).toBe(5);
    expect(value(metrics, `dueq_jobs_completed_total{queue="${name}"}`)).toBe(3);
    expect(value(metrics, `dueq_jobs_failed_total{queue="${name}"}`)).toBe(1);
    expect(value(metrics, `dueq_jobs_dead_total{queue="${name}"}`)).toBe(1);
    expect(value(metrics, `dueq_jobs_reclaimed_total{queue="${name}"}`)).toBe(0);
    expect(value(metrics, `dueq_oldest_ready_age_seconds{queue="${name}"}`)).toBe(0);
    expect(value(metrics, 'dueq_workers_alive')).toBe(2);
    expect(value(metrics, 'dueq_worker_restarts_total')).toBe(0);
    expect(value(metrics, `dueq_job_lateness_seconds_count{queue="${name}",type="record"}`)).toBe(3);
    expect(value(metrics, `dueq_job_lateness_seconds_bucket{le="+Inf",queue="${name}",type="record"}`)).toBe(
      3,
    );

    expectPromtoolAccepts(metrics);
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);

    const finished = supervisor.lines.filter((l) => l.outcome === 'completed' && l.queue === name);
    expect(finished).toHaveLength(3);
    for (const line of finished) {
      expect(line).toMatchObject({ component: 'worker', type: 'record', attempt: 1, outcome: 'completed' });
      expect(typeof line.id).toBe('string');
      expect(line.durationMs).toBeGreaterThanOrEqual(0);
    }
    const dead = supervisor.lines.find((l) => l.outcome === 'dead' && l.id === unknown);
    expect(dead).toMatchObject({
      type: 'no.such.type',
      attempt: 1,
      error: 'No handler for job type "no.such.type" in this worker',
    });
    supervisor.signal('SIGTERM');
    expect((await supervisor.exited).code).toBe(0);
    await queue.close();
  });

  it('with --shards, runs the jobs of every shard of a sharded queue and measures each shard', async () => {
    const name = uniqueName('ms');
    const queue = new Queue(name, { connection: redisUrl(), shards: 3 });
    const { supervisor, port, log } = await startWithMetrics(name, ['--shards', '3', '--workers', '1']);
    await supervisor.started();
    expect(supervisor.lines.some((l) => /on .* \(3 shards each\)$/.test(l.msg))).toBe(true);
    await queue.addBulk(Array.from({ length: 30 }, (_, n) => ({ type: 'record', data: { log, n } })));
    await queue.add('record', { log, n: 30 }, { delay: 200 });
    await expect
      .poll(() => readRecords(log).filter((r) => r.phase === 'end').length, { timeout: 10_000 })
      .toBe(31);
    // Completions are acknowledged in batches just after their handlers return.
    await expect.poll(async () => (await queue.totals()).completed).toBe(31);
    const perShard = await Promise.all(queue.shards.map(async (s) => (await s.totals()).completed));
    expect(perShard.every((count) => count > 0)).toBe(true);
    expect(await queue.doctor()).toMatchObject({ ok: true });

    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const completed = queue.shards.map((s) => value(metrics, `dueq_jobs_completed_total{queue="${s.name}"}`));
    expect(completed).toEqual(perShard);
    expectPromtoolAccepts(metrics);
    supervisor.signal('SIGTERM');
    expect((await supervisor.exited).code).toBe(0);
    await queue.close();
  });

  it('refuses --shards for a queue that is itself a shard, in one line', async () => {
    const run = await dueq(
      [
        '--redis',
        redisUrl(),
        'start',
        '--jobs',
        join(FIXTURES, 'jobs'),
        '--queue',
        'orders#1',
        '--shards',
        '2',
      ],
      { cwd: tempDir() },
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/^dueq: Queue "orders#1" is itself a shard: it cannot have shards\n?$/);
  });
});
