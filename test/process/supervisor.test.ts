import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Queue } from '../../src/index.js';
import { dueq, FIXTURES, RunningSupervisor, readRecords, tempDir } from '../support/cli.js';
import { redisUrl, uniqueName } from '../support/harness.js';
import { RedisServer } from '../support/redis-server.js';

const JOBS = join(FIXTURES, 'jobs');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `dueq start` with real worker processes and real signals, on a queue of its own. */
describe('dueq start', () => {
  const running: RunningSupervisor[] = [];
  const queues: Queue[] = [];

  afterEach(async () => {
    await Promise.all(running.splice(0).map((s) => s.kill()));
    for (const queue of queues.splice(0)) {
      // Every test ends with a clean doctor, checked the way an operator would.
      const doctor = await dueq(['--redis', redisUrl(), 'doctor', queue.name], { cwd: tempDir() });
      expect(doctor.stdout + doctor.stderr, `doctor ${queue.name}`).toMatch(/^ok /);
      expect(doctor.code).toBe(0);
      await queue.close();
    }
  });

  function setup(extra: string[] = []) {
    const cwd = tempDir();
    const name = uniqueName('p');
    const queue = new Queue(name, { connection: redisUrl() });
    queues.push(queue);
    const start = (more: string[] = []) => {
      const s = new RunningSupervisor(
        ['--redis', redisUrl(), 'start', '--jobs', JOBS, '--queue', name, ...extra, ...more],
        cwd,
      );
      running.push(s);
      return s;
    };
    return { cwd, queue, log: join(cwd, 'records.log'), start };
  }

  it('warns at start when Redis may evict keys, and not when it may not', async () => {
    const evicting = await RedisServer.start(['--maxmemory-policy', 'allkeys-lru']);
    try {
      const s = new RunningSupervisor(
        ['--redis', evicting.url, 'start', '--jobs', JOBS, '--queue', uniqueName('p')],
        tempDir(),
      );
      running.push(s);
      const warning = await s.waitForMessage(/maxmemory-policy/);
      expect(warning.msg).toBe(
        'Redis maxmemory-policy is allkeys-lru: when memory runs short Redis deletes keys, jobs among them; set maxmemory-policy to noeviction',
      );
      expect(warning.level).toBe(40);
      await s.started();
      await s.kill();
    } finally {
      await evicting.stop();
    }
    const { start } = setup();
    const quiet = start();
    await quiet.started();
    expect(quiet.lines.filter((l) => /maxmemory/.test(l.msg))).toEqual([]);
  });

  it('replaces a worker process killed while it starts, and starts anyway', async () => {
    const { queue, log, start } = setup(['--workers', '2']);
    const supervisor = start();
    const first = await supervisor.waitForMessage(/^worker 1 started/);
    process.kill(first.workerPid as number, 'SIGKILL');
    const note = await supervisor.waitForMessage(/was killed \(SIGKILL\) while starting; starting another/);
    expect(note.workerPid).toBe(first.workerPid);
    await supervisor.started();
    expect(supervisor.running).toBe(true);
    await queue.add('record', { log });
    await expect.poll(() => readRecords(log).length, { timeout: 10_000 }).toBeGreaterThan(0);
  });

  it('respawns a worker process killed with kill -9 mid-job; the job runs again after its lease', async () => {
    const { queue, log, start } = setup(['--workers', '2', '--lease', '2s']);
    const supervisor = start();
    await supervisor.started();
    const id = await queue.add('record', { log, ms: 60_000 }, { backoff: { type: 'fixed', delay: 100 } });
    await expect.poll(() => readRecords(log).length, { timeout: 10_000 }).toBe(1);
    const [first] = readRecords(log);
    process.kill(first?.pid as number, 'SIGKILL');

    const crash = await supervisor.waitForMessage(/crashed \(signal SIGKILL\)/);
    expect(crash.workerPid).toBe(first?.pid);
    await supervisor.waitFor(
      (l) => /^worker \d started/.test(l.msg) && l.slot === crash.slot && l.workerPid !== first?.pid,
    );
    // Attempt 2 starts once the lease (2 s) has expired and the job was reclaimed.
    await expect
      .poll(() => readRecords(log).filter((r) => r.phase === 'start').length, { timeout: 10_000 })
      .toBe(2);
    const second = readRecords(log)[1];
    expect(second).toMatchObject({ id, attempt: 2 });
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(1_900);
    expect((await queue.getJob(id))?.errors[0]?.message).toMatch(/^Lease expired/);
    await queue.cancel(id);
    await supervisor.kill();
  });

  it('on SIGTERM lets a 2 s job finish and exits 0 well before the deadline', async () => {
    const { queue, log, start } = setup(['--workers', '2', '--grace', '20s']);
    const supervisor = start();
    await supervisor.started();
    const id = await queue.add('record', { log, ms: 2_000 });
    await expect.poll(() => readRecords(log).length, { timeout: 10_000 }).toBe(1);
    const signalled = Date.now();
    supervisor.signal('SIGTERM');
    const { code } = await supervisor.exited;
    const tookMs = Date.now() - signalled;
    expect(code).toBe(0);
    expect(tookMs).toBeLessThan(10_000);
    expect(readRecords(log).map((r) => r.phase)).toEqual(['start', 'end']);
    expect(await queue.getJob(id)).toBeNull();
    expect((await queue.counts()).done).toBe(1);
    expect(supervisor.lines.some((l) => l.msg === 'dueq stopped')).toBe(true);
  });

  it('kills what still runs at the deadline and leaves it to lease recovery', async () => {
    const { queue, log, start } = setup(['--workers', '1', '--grace', '1s', '--lease', '2s']);
    const supervisor = start();
    await supervisor.started();
    const id = await queue.add('record', { log, ms: 60_000 });
    await expect.poll(() => readRecords(log).length, { timeout: 10_000 }).toBe(1);
    supervisor.signal('SIGTERM');
    const { code } = await supervisor.exited;
    expect(code).toBe(0);
    expect(supervisor.lines.some((l) => /stopped \(signal SIGKILL\)/.test(l.msg))).toBe(true);
    expect(await queue.getJob(id)).toMatchObject({ state: 'active', attempt: 1 });
    // A scheduler elsewhere reclaims it when the lease runs out; the next start runs it.
    const again = start();
    await again.started();
    await expect
      .poll(() => readRecords(log).filter((r) => r.phase === 'start').length, { timeout: 10_000 })
      .toBe(2);
    expect(readRecords(log)[1]).toMatchObject({ id, attempt: 2 });
    await queue.cancel(id);
  });

  it('kills at once on a second signal', async () => {
    const { queue, log, start } = setup(['--workers', '1', '--grace', '60s', '--lease', '2s']);
    const supervisor = start();
    await supervisor.started();
    const id = await queue.add('record', { log, ms: 60_000 });
    await expect.poll(() => readRecords(log).length, { timeout: 10_000 }).toBe(1);
    supervisor.signal('SIGINT');
    await supervisor.waitForMessage(/^SIGINT: stopping/);
    const forced = Date.now();
    supervisor.signal('SIGINT');
    expect((await supervisor.exited).code).toBe(0);
    expect(Date.now() - forced).toBeLessThan(5_000);
    expect(supervisor.lines.some((l) => /SIGINT again: killing worker processes now/.test(l.msg))).toBe(true);
    // The killed job is recovered by its lease, like after any crash.
    expect((await queue.getJob(id))?.state).toBe('active');
    await queue.cancel(id);
    const scheduler = start();
    await scheduler.started();
    await expect.poll(() => queue.getJob(id), { timeout: 10_000 }).toBeNull();
  });

  it('rolls worker processes onto fresh job code on SIGHUP', async () => {
    const { queue, log, start } = setup(['--workers', '1']);
    const supervisor = start();
    await supervisor.started();
    const before = await supervisor.waitForMessage(/^worker 1 started/);
    supervisor.signal('SIGHUP');
    await supervisor.waitForMessage(/^reloaded: 1 worker processes/);
    const after = supervisor.lines.filter((l) => /^worker 1 started/.test(l.msg)).at(-1);
    expect(after?.workerPid).not.toBe(before.workerPid);
    await queue.add('record', { log });
    await expect
      .poll(() => readRecords(log).map((r) => r.pid), { timeout: 10_000 })
      .toEqual([after?.workerPid, after?.workerPid]);
  });

  it('refuses a second start on the same pid file, naming the running pid', async () => {
    const { cwd, queue, start } = setup(['--workers', '1']);
    const supervisor = start();
    await supervisor.started();
    const second = await dueq(['--redis', redisUrl(), 'start', '--jobs', JOBS, '--queue', queue.name], {
      cwd,
    });
    expect(second.code).toBe(4);
    expect(second.stderr.trim()).toBe(
      `dueq: dueq is already running (pid ${supervisor.pid}, pid file ${join(cwd, '.dueq/dueq.pid')}); stop it with \`dueq stop\``,
    );
    const status = await dueq(['status', '--json'], { cwd });
    expect(JSON.parse(status.stdout)).toMatchObject({ running: true, pid: supervisor.pid, workersWanted: 1 });
    const stop = await dueq(['stop'], { cwd });
    expect(stop.code).toBe(0);
    expect(stop.stdout).toMatch(new RegExp(`^stopped dueq \\(pid ${supervisor.pid}\\) in `));
    expect((await supervisor.exited).code).toBe(0);
    const again = await dueq(['stop'], { cwd });
    expect(again.code).toBe(3);
    expect(again.stderr).toMatch(/dueq is not running/);
  });

  it('reloads 2 → 4 → 1 worker processes while jobs flow, losing none', async () => {
    const { cwd, queue, log, start } = setup(['--workers', '2', '--grace', '20s']);
    const supervisor = start();
    await supervisor.started();
    const total = 300;
    const producing = (async () => {
      for (let n = 0; n < total; n++) {
        await queue.add('record', { log, ms: 20, n });
        if (n % 10 === 0) await sleep(30);
      }
    })();
    await sleep(300);
    const up = await dueq(['reload', '--workers', '4'], { cwd });
    expect(up.stdout).toMatch(/reloaded dueq \(pid \d+\): 2 → 4 worker processes/);
    await sleep(300);
    const down = await dueq(['reload', '--workers', '1', '--json'], { cwd });
    expect(JSON.parse(down.stdout)).toMatchObject({ reloaded: true, from: 4, to: 1 });
    await producing;
    await expect
      .poll(
        () =>
          new Set(
            readRecords(log)
              .filter((r) => r.phase === 'end')
              .map((r) => r.n),
          ).size,
        { timeout: 20_000 },
      )
      .toBe(total);
    const status = JSON.parse((await dueq(['status', '--json'], { cwd })).stdout);
    expect(status.workers).toHaveLength(1);
    expect(status.restarts).toBe(0);
    // Graceful drains: nothing ran twice.
    expect(readRecords(log).filter((r) => r.phase === 'end')).toHaveLength(total);
    expect(await queue.counts()).toMatchObject({ done: total, ready: 0, active: 0, delayed: 0, dead: 0 });
  });

  it('backs off respawns in a crash loop, and the job that causes it ends in dead', async () => {
    const { queue, log, start } = setup(['--workers', '1', '--lease', '1s']);
    const supervisor = start();
    await supervisor.started();
    const id = await queue.add('crash', { log });
    await expect.poll(async () => (await queue.getJob(id))?.state, { timeout: 20_000 }).toBe('dead');
    const crashes = supervisor.lines.filter((l) => /crashed/.test(l.msg));
    expect(crashes.length).toBe(3);
    const waits = crashes.map((l) => l.respawnInMs as number);
    expect(waits).toEqual([500, 1_000, 2_000]);
    const job = await queue.getJob(id);
    expect(job?.attempt).toBe(3);
    expect(job?.errors.map((e) => e.message)).toEqual(Array(3).fill(expect.stringMatching(/^Lease expired/)));
    expect(readRecords(log)).toHaveLength(3);
    // The supervisor is still up and serving.
    const after = await queue.add('record', { log: `${log}.after` });
    await expect.poll(() => queue.getJob(after), { timeout: 10_000 }).toBeNull();
  });

  it('replaces a worker process whose job runs past its timeout ignoring its signal; the job follows its retry policy', async () => {
    const { queue, log, start } = setup(['--workers', '1', '--stuck-after', '500ms']);
    const supervisor = start();
    await supervisor.started();
    const first = await supervisor.waitForMessage(/^worker 1 started/);
    const id = await queue.add('hang', { log });
    await supervisor.waitForMessage(/runs a job past its timeout/);
    await supervisor.waitFor((l) => /^worker 1 started/.test(l.msg) && l.workerPid !== first.workerPid);
    await expect.poll(async () => (await queue.getJob(id))?.state, { timeout: 15_000 }).toBe('dead');
    const job = await queue.getJob(id);
    expect(job?.errors.map((e) => e.message)).toEqual([
      'Job attempt timed out after 300 ms',
      'Job attempt timed out after 300 ms',
    ]);
    await supervisor.waitFor(
      (l) => /stopped \(signal SIGKILL\)/.test(l.msg) && l.workerPid === first.workerPid,
    );
  });

  it('replaces a worker process that grew past --max-memory-mb, after it drained', async () => {
    const { cwd, queue, start } = setup(['--workers', '1', '--max-memory-mb', '200']);
    const supervisor = start();
    const ready = await supervisor.waitForMessage(/^worker 1 started/);
    await supervisor.started();
    await queue.add('grow', { mb: 250 });
    const over = await supervisor.waitForMessage(/over 200 MB: replacing it once it has drained/);
    expect(over.rssMb).toBeGreaterThan(200);
    await supervisor.waitFor((l) => /stopped \(code 0\)/.test(l.msg) && l.workerPid === ready.workerPid);
    const status = JSON.parse((await dueq(['status', '--json'], { cwd })).stdout);
    expect(status.workers.map((w: { pid: number }) => w.pid)).not.toContain(ready.workerPid);
    expect(status.restarts).toBe(0);
  });
});

describe('dueq start with a bad jobs directory', () => {
  it.each([
    ['a file that fails to load', 'jobs-broken', /^dueq: .*broken\.ts: failed to load: /],
    ['a file that is not a job', 'jobs-not-a-job', /^dueq: .*plain\.mjs: its default export is not a job/],
  ])('stops the start on %s, naming it', async (_label, dir, message) => {
    const cwd = tempDir();
    const result = await dueq(
      ['--redis', redisUrl(), 'start', '--jobs', join(FIXTURES, dir), '--queue', uniqueName()],
      { cwd },
    );
    expect(result.code).toBe(78);
    const lines = result.stderr.split('\n').filter((l) => l.startsWith('dueq:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect((await dueq(['status'], { cwd })).code).toBe(3);
  });

  it('says so at once when Redis cannot be reached', async () => {
    const result = await dueq(['--redis', 'redis://127.0.0.1:1', 'start', '--jobs', JOBS], {
      cwd: tempDir(),
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(
      /^dueq: cannot reach Redis at redis:\/\/127\.0\.0\.1:1: connect ECONNREFUSED 127\.0\.0\.1:1$/,
    );
  });

  it('refuses a directory that does not exist', async () => {
    const result = await dueq(['--redis', redisUrl(), 'start', '--jobs', 'nowhere'], { cwd: tempDir() });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('dueq: --jobs nowhere: no such directory');
  });
});
