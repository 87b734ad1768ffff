import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from '../../src/index.js';
import { FIXTURES, RunningSupervisor, tempDir } from '../support/cli.js';
import { RedisServer } from '../support/redis-server.js';

export const JOBS = Number(process.env.DUEQ_CHAOS_JOBS ?? 20_000);
const WORKERS = 4;
const CONCURRENCY = 16;
/** Short, so that the jobs of a killed or stalled worker run again within seconds. */
export const LEASE_MS = 2_000;
/** However long a scenario runs, it stops: its chaos first, then the wait for the last jobs. */
const FINISH_WITHIN_MS = 150_000;

export interface Figures {
  scenario: string;
  jobs: number;
  seconds: number;
  /** What the chaos did, e.g. "24 workers killed". */
  chaos: string;
  /** Handler starts in all (a job that ran twice counts twice). */
  runs: number;
  /** Jobs with at least one run that ended. */
  jobsRun: number;
  /** Jobs whose handler started more than once. */
  ranTwice: number;
  /** Of those, how many had a run on a worker process the chaos killed or stopped. */
  ranTwiceOnDisturbedWorker: number;
  completed: number;
  left: { delayed: number; ready: number; active: number; dead: number };
  doctorOk: boolean;
  supervisorUp: boolean;
}

/**
 * One chaos scenario's world: a redis-server of its own (AOF everysec, so it can be killed and
 * restarted without losing acknowledged writes), `dueq start` with 4 worker processes, and JOBS
 * jobs that log each start and end (test/fixtures/jobs-chaos).
 */
export class ChaosRun {
  readonly log: string;
  readonly disturbed = new Set<number>();
  private readonly started = performance.now();

  private constructor(
    readonly server: RedisServer,
    readonly queue: Queue,
    readonly supervisor: RunningSupervisor,
    dir: string,
  ) {
    this.log = join(dir, 'runs.log');
  }

  static async start(name: string): Promise<ChaosRun> {
    const server = await RedisServer.start(['--appendonly', 'yes', '--appendfsync', 'everysec']);
    const dir = tempDir('dueq-chaos-');
    const queue = new Queue(name, { connection: server.url });
    const log = join(dir, 'runs.log');
    await queue.pause();
    for (let n = 0; n < JOBS; n += 1_000) {
      const slice = Array.from({ length: Math.min(1_000, JOBS - n) }, (_, k) => ({
        type: 'chaos',
        data: { n: n + k, log },
      }));
      await queue.addBulk(slice);
    }
    const supervisor = new RunningSupervisor(
      [
        '--redis',
        server.url,
        'start',
        '--jobs',
        join(FIXTURES, 'jobs-chaos'),
        '--queue',
        name,
        '--workers',
        String(WORKERS),
        '--concurrency',
        String(CONCURRENCY),
        '--lease',
        `${LEASE_MS}ms`,
        '--grace',
        '5s',
      ],
      dir,
      { DUEQ_LOG_LEVEL: 'warn' },
    );
    const run = new ChaosRun(server, queue, supervisor, dir);
    await run.waitForWorkers(name, WORKERS);
    await queue.resume();
    return run;
  }

  /** The supervisor's worker processes now. */
  workerPids(): number[] {
    try {
      return execFileSync('ps', ['-o', 'pid=', '--ppid', String(this.supervisor.pid)], { encoding: 'utf8' })
        .split('\n')
        .map((s) => Number(s.trim()))
        .filter((pid) => pid > 0);
    } catch {
      return []; // ps exits 1 when there are none
    }
  }

  /**
   * Until every worker process listens for work: each holds a blocking connection named
   * dueq:worker:<queue>:<id>:wait (the log is at warn level, so it does not say).
   */
  private async waitForWorkers(name: string, count: number): Promise<void> {
    const deadline = Date.now() + 30_000;
    const waiting = new RegExp(`name=dueq:worker:${name}:\\S+:wait\\b`, 'g');
    for (;;) {
      const list = String(await this.queue.client.client('LIST'));
      if ((list.match(waiting) ?? []).length >= count) return;
      if (!this.supervisor.running)
        throw new Error(`dueq start exited:\n${this.supervisor.output.join('\n')}`);
      if (Date.now() > deadline) throw new Error(`dueq start did not start ${count} workers within 30 s`);
      await sleep(50);
    }
  }

  /** Jobs completed so far; 0 while Redis is down. */
  async completed(): Promise<number> {
    try {
      return (await this.queue.totals()).completed;
    } catch {
      return 0;
    }
  }

  /** Resolves once `fraction` of the jobs completed. */
  async progress(fraction: number): Promise<void> {
    while ((await this.completed()) < JOBS * fraction) await sleep(50);
  }

  async done(): Promise<boolean> {
    return (await this.completed()) >= JOBS;
  }

  /** Waits for every job, then gathers the figures and stops everything this run started. */
  async finish(scenario: string, chaos: string): Promise<Figures> {
    const deadline = Date.now() + FINISH_WITHIN_MS;
    while (!(await this.done()) && Date.now() < deadline) await sleep(100);
    const seconds = Math.round((performance.now() - this.started) / 100) / 10;
    // Late duplicates (a stalled worker finishing) would show within a lease; give them one.
    await sleep(LEASE_MS);
    const records = readRuns(this.log);
    const counts = await this.queue.counts();
    const totals = await this.queue.totals();
    const doctor = await this.queue.doctor();
    const supervisorUp = this.supervisor.running;
    const figures: Figures = {
      scenario,
      jobs: JOBS,
      seconds,
      chaos,
      runs: [...records.starts.values()].reduce((a, p) => a + p.length, 0),
      jobsRun: records.ended.size,
      ranTwice: 0,
      ranTwiceOnDisturbedWorker: 0,
      completed: totals.completed,
      left: { delayed: counts.delayed, ready: counts.ready, active: counts.active, dead: counts.dead },
      doctorOk: doctor.ok,
      supervisorUp,
    };
    for (const pids of records.starts.values()) {
      if (pids.length < 2) continue;
      figures.ranTwice++;
      if (pids.some((pid) => this.disturbed.has(pid))) figures.ranTwiceOnDisturbedWorker++;
    }
    return figures;
  }

  async stop(): Promise<{ code: number | null }> {
    this.supervisor.signal('SIGTERM');
    const exit = await Promise.race([this.supervisor.exited, sleep(30_000).then(() => ({ code: -1 }))]);
    await this.supervisor.kill();
    await this.queue.close();
    await this.server.stop();
    return { code: exit.code };
  }
}

/** The job log: for each job number, the pids of its handler starts, and the jobs that ended. */
function readRuns(file: string): { starts: Map<number, number[]>; ended: Set<number> } {
  const starts = new Map<number, number[]>();
  const ended = new Set<number>();
  if (!existsSync(file)) return { starts, ended };
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const [n, pid, phase] = line.split(' ');
    if (phase === 's') {
      const list = starts.get(Number(n)) ?? [];
      list.push(Number(pid));
      starts.set(Number(n), list);
    } else if (phase === 'e') ended.add(Number(n));
  }
  return { starts, ended };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function describeFigures(f: Figures): string {
  return [
    `chaos: ${f.scenario}`,
    `  ${f.jobs} jobs in ${f.seconds} s; ${f.chaos}`,
    `  completed ${f.completed}, left delayed/ready/active/dead ${f.left.delayed}/${f.left.ready}/${f.left.active}/${f.left.dead}`,
    `  handler runs ${f.runs}; jobs that ran twice ${f.ranTwice} (on a killed or stopped worker: ${f.ranTwiceOnDisturbedWorker})`,
    `  doctor ${f.doctorOk ? 'clean' : 'found problems'}; supervisor ${f.supervisorUp ? 'up' : 'DOWN'}`,
  ].join('\n');
}
