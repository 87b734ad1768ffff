import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { ChaosRun, describeFigures, type Figures, JOBS, LEASE_MS, sleep } from './chaos-run.js';

/**
 * `npm run test:chaos`: 20,000 jobs through `dueq start` (4 worker processes) while something
 * breaks, one scenario at a time. After each: every job completed, none lost or left behind,
 * doctor clean, the supervisor up; jobs that ran twice are counted, and where a worker was killed
 * or stopped, each of them had a run on that worker.
 */
const figures: Figures[] = [];

afterAll(() => {
  console.log(`\n${figures.map(describeFigures).join('\n\n')}\n`);
});

function expectNothingLost(f: Figures): void {
  expect(f.jobsRun, 'jobs whose handler ran to its end').toBe(JOBS);
  expect(f.completed, 'jobs recorded completed').toBe(JOBS);
  expect(f.left).toEqual({ delayed: 0, ready: 0, active: 0, dead: 0 });
  expect(f.doctorOk, 'doctor').toBe(true);
  expect(f.supervisorUp, 'the supervisor is still up').toBe(true);
}

async function scenario(name: string, chaos: (run: ChaosRun) => Promise<string>): Promise<Figures> {
  const run = await ChaosRun.start(`chaos-${name.replace(/\W+/g, '-')}`);
  try {
    const done = chaos(run);
    const what = await done;
    const f = await run.finish(name, what);
    figures.push(f);
    return f;
  } finally {
    const { code } = await run.stop();
    expect(code, 'the supervisor exits 0 on SIGTERM').toBe(0);
  }
}

describe.sequential(`chaos: ${JOBS} jobs through dueq start with 4 worker processes`, () => {
  it('random worker processes are kill -9ed every 300 ms', async () => {
    const f = await scenario('worker processes kill -9ed every 300 ms', async (run) => {
      let kills = 0;
      // For ten seconds or until the work is done; then the rest finishes undisturbed.
      const until = Date.now() + 10_000;
      while (Date.now() < until && !(await run.done())) {
        const pids = run.workerPids();
        const pid = pids[Math.floor(Math.random() * pids.length)];
        if (pid) {
          run.disturbed.add(pid);
          process.kill(pid, 'SIGKILL');
          kills++;
        }
        await sleep(300);
      }
      return `${kills} worker processes killed with SIGKILL`;
    });
    expectNothingLost(f);
    expect(f.ranTwice).toBe(f.ranTwiceOnDisturbedWorker);
  });

  it('redis-server (AOF everysec) is kill -9ed and restarted twice', async () => {
    const f = await scenario('redis-server kill -9ed and restarted twice', async (run) => {
      for (const at of [0.25, 0.6]) {
        await run.progress(at);
        await run.server.kill();
        await sleep(500);
        await run.server.restart();
      }
      return 'redis-server killed with SIGKILL at 25 % and 60 % of the jobs, restarted after 0.5 s';
    });
    expectNothingLost(f);
  });

  it('every client connection is killed again and again', async () => {
    const f = await scenario('every client connection killed every 250 ms', async (run) => {
      const admin = new Redis(run.server.url);
      let rounds = 0;
      let killed = 0;
      try {
        const until = Date.now() + 8_000;
        while (Date.now() < until && !(await run.done())) {
          // SKIPME yes (the default): this connection survives to do it again.
          killed += Number(await admin.client('KILL', 'TYPE', 'normal'));
          rounds++;
          await sleep(250);
        }
      } finally {
        admin.disconnect();
      }
      return `CLIENT KILL TYPE normal ${rounds} times, ${killed} connections killed`;
    });
    expectNothingLost(f);
    // No worker died: a connection killed mid-call is re-sent, and every script is safe to repeat.
    expect(f.ranTwice).toBe(0);
  });

  it('a worker process stopped past its lease, then continued', async () => {
    const f = await scenario('a worker SIGSTOPped past its lease, then SIGCONTed', async (run) => {
      await run.progress(0.2);
      const pid = run.workerPids()[0] as number;
      run.disturbed.add(pid);
      process.kill(pid, 'SIGSTOP');
      await sleep(LEASE_MS * 2.5);
      process.kill(pid, 'SIGCONT');
      return `one worker process stopped for ${(LEASE_MS * 2.5) / 1000} s (lease ${LEASE_MS / 1000} s)`;
    });
    expectNothingLost(f);
    expect(f.ranTwice).toBe(f.ranTwiceOnDisturbedWorker);
    expect(f.ranTwice, 'the stopped worker held jobs; they ran again elsewhere').toBeGreaterThan(0);
  });
});
