import type { Server } from 'node:http';
import { DueqError } from '../errors.js';
import type { Logger } from '../logging/logger.js';
import { SupervisorMetrics, serveMetrics } from '../metrics/supervisor-metrics.js';
import { Queue } from '../queue/queue.js';
import { Scheduler } from '../scheduler/scheduler.js';
import { type ControlRequest, controlSocketPath, startControlServer } from './control.js';
import type { ChildConfig } from './messages.js';
import { acquirePidFile } from './pid-file.js';
import { RespawnPolicy } from './respawn.js';
import { WorkerProcess } from './worker-process.js';

export interface SupervisorOptions {
  jobsDir: string;
  queues: string[];
  /** Worker processes. */
  workers: number;
  /** Jobs each worker process runs at once, per queue. */
  concurrency: number;
  leaseMs: number;
  /** On stop, how long running jobs get before their processes are killed. */
  graceMs: number;
  /** A worker process past this resident size is replaced, after it drained. */
  maxMemoryMb: number | undefined;
  /** A handler this long past its timeout (it ignored its AbortSignal) gets its process replaced. */
  stuckAfterMs: number;
  pidFile: string;
  redisUrl: string;
  prefix: string;
  /** Each queue is sharded into this many shards (the Queue option `shards`). @default 1 */
  shards?: number;
  /** Serve Prometheus metrics on this port (GET /metrics). */
  metricsPort?: number | undefined;
  /** @default 127.0.0.1 */
  metricsHost?: string;
  log: Logger;
}

export interface SupervisorStatus {
  pid: number;
  startedAt: string;
  uptimeMs: number;
  state: 'starting' | 'running' | 'stopping';
  queues: string[];
  jobsDir: string;
  workersWanted: number;
  concurrency: number;
  workers: {
    slot: number;
    pid: number | undefined;
    state: string;
    uptimeMs: number;
    rssMb: number;
    active: number;
  }[];
  restarts: number;
  backpressure: string[];
}

/** A worker process could not start: its jobs directory failed to load, or it exited first. */
export class WorkerStartError extends DueqError {
  constructor(message: string) {
    super('DUEQ_JOB_LOAD', message);
  }
}

/** How long new processes get to report ready before a reload goes on without them. */
const READY_TIMEOUT_MS = 30_000;
/** Times a slot's process may be killed by a signal while it starts before the start gives up. */
const START_KILLS_TOLERATED = 3;
/** Exit code when the jobs directory cannot be loaded (EX_CONFIG). */
export const EXIT_CONFIG = 78;

/**
 * `dueq start`: forks worker processes, keeps them alive, and runs the queues' Schedulers.
 *
 * Its modes: starting (children load the jobs directory; a load error stops everything with the
 * file named), running (a child that exits on its own is a crash: respawned after a wait that
 * grows in a crash loop; SIGHUP or `dueq reload` starts fresh children, then drains the old ones),
 * stopping (SIGTERM or SIGINT: no respawns, children drain for `graceMs` and are then killed; a
 * second signal kills them at once). `done` resolves with the exit code.
 */
export class Supervisor {
  private readonly processes = new Set<WorkerProcess>();
  private readonly policies = new Map<number, RespawnPolicy>();
  private readonly respawns = new Map<number, NodeJS.Timeout>();
  private readonly schedulers: Scheduler[] = [];
  private readonly startedAt = Date.now();
  private state: 'starting' | 'running' | 'stopping' = 'starting';
  private wanted: number;
  private restarts = 0;
  private pidFile: { release(): void } | undefined;
  private control: { close(): Promise<void> } | undefined;
  private metricsServer: Server | undefined;
  private readonly metricsQueues: Queue[] = [];
  private finish!: (code: number) => void;
  /** Resolves with the process exit code once everything has stopped. */
  readonly done = new Promise<number>((resolve) => {
    this.finish = resolve;
  });
  private readonly log: Logger;

  constructor(private readonly options: SupervisorOptions) {
    this.wanted = options.workers;
    this.log = options.log;
  }

  /** Takes the pid file (or throws AlreadyRunningError), starts everything; resolves once all workers are ready. */
  async start(): Promise<void> {
    const o = this.options;
    this.pidFile = acquirePidFile(o.pidFile);
    try {
      for (const queue of o.queues) {
        const scheduler = new Scheduler(queue, {
          connection: o.redisUrl,
          prefix: o.prefix,
          shards: o.shards,
        });
        scheduler.on('error', (error) => this.log.warn({ queue, error: error.message }, 'scheduler error'));
        scheduler.on('reclaimed', ({ reclaimed, dead }) =>
          this.log.warn(
            { queue, reclaimed, dead },
            'reclaimed jobs whose lease expired (a worker died or stalled)',
          ),
        );
        scheduler.on('backpressure', ({ ready, maxReady }) =>
          this.log.warn({ queue, ready, maxReady }, 'ready is full: promotion paused until workers catch up'),
        );
        scheduler.on('backpressureEnded', ({ ready }) =>
          this.log.info({ queue, ready }, 'promotion resumed'),
        );
        await scheduler.start();
        this.schedulers.push(scheduler);
      }
      if (o.metricsPort !== undefined) await this.startMetrics(o.metricsPort, o.metricsHost ?? '127.0.0.1');
      this.control = await startControlServer(controlSocketPath(o.pidFile), (request) =>
        this.onControl(request),
      ).catch((error: Error) => {
        this.log.warn(
          { error: error.message },
          'no control socket; `dueq status` and `dueq reload --workers` will not reach this process',
        );
        return undefined;
      });
    } catch (error) {
      await this.teardown();
      throw error;
    }
    this.installSignals();
    const first = Array.from({ length: this.wanted }, (_, i) => this.spawn(i + 1));
    const failure = await this.awaitReady(first);
    if (failure) {
      this.log.error(failure.message);
      await this.stopAll(0);
      await this.teardown();
      throw failure;
    }
    this.state = 'running';
    this.log.info(
      {
        workers: this.wanted,
        concurrency: o.concurrency,
        queues: o.queues,
        jobs: o.jobsDir,
        pidFile: o.pidFile,
      },
      `dueq started: ${this.wanted} worker processes × ${o.concurrency} jobs at once on ${o.queues.join(', ')}${(o.shards ?? 1) > 1 ? ` (${o.shards} shards each)` : ''}`,
    );
  }

  private async startMetrics(port: number, host: string): Promise<void> {
    for (const name of this.options.queues) {
      this.metricsQueues.push(
        new Queue(name, {
          connection: this.options.redisUrl,
          prefix: this.options.prefix,
          shards: this.options.shards,
        }),
      );
    }
    // A sharded queue's series are per shard: each shard is its own `queue` label.
    const measured = this.metricsQueues.flatMap((q) => (q.shards.length > 0 ? q.shards : [q]));
    const metrics = new SupervisorMetrics(measured, {
      workersAlive: () =>
        [...this.processes].filter((p) => p.state === 'running' || p.state === 'draining').length,
      restarts: () => this.restarts,
      // A Scheduler of a sharded queue reports for all its shards at once.
      backpressure: (queue) =>
        this.schedulers.some((s) => (s.name === queue || queue.startsWith(`${s.name}#`)) && s.backpressure),
      workerSnapshots: () => [...this.processes].map((p) => p.metrics).filter((m) => m.length > 0),
    });
    this.metricsServer = await serveMetrics(metrics, port, host);
    this.log.info({ metrics: `http://${host}:${port}/metrics` }, `metrics on http://${host}:${port}/metrics`);
  }

  /**
   * Waits until every process is ready; the first one that fails to start is returned as an
   * error. A process killed by a signal while it starts (by an operator, the OOM killer) says
   * nothing about the jobs directory: its slot gets a new process, up to a few times.
   */
  private awaitReady(processes: WorkerProcess[]): Promise<WorkerStartError | undefined> {
    return new Promise((resolve) => {
      let pending = processes.length;
      const timer = setTimeout(() => resolve(undefined), READY_TIMEOUT_MS);
      const fail = (message: string) => {
        clearTimeout(timer);
        resolve(new WorkerStartError(message));
      };
      const watch = (p: WorkerProcess, killedBefore: number) => {
        let ready = false;
        let fatal: string | undefined;
        p.once('ready', () => {
          ready = true;
          if (--pending === 0) {
            clearTimeout(timer);
            resolve(undefined);
          }
        });
        p.once('fatal', (message) => {
          fatal = message;
        });
        p.once('exit', (code, signal) => {
          if (ready) return;
          // At start only: once running, onExit's respawn policy takes over.
          const starting = this.state === 'starting';
          if (starting && signal && !fatal && killedBefore + 1 < START_KILLS_TOLERATED) {
            this.log.warn(
              { slot: p.slot, workerPid: p.pid, signal },
              `worker ${p.slot} (pid ${p.pid}) was killed (${signal}) while starting; starting another`,
            );
            watch(this.spawn(p.slot), killedBefore + 1);
            return;
          }
          fail(
            fatal ??
              `worker ${p.slot} exited while starting (${signal ? `signal ${signal}` : `code ${code}`})`,
          );
        });
      };
      for (const p of processes) watch(p, 0);
    });
  }

  private childConfig(slot: number): ChildConfig {
    const o = this.options;
    return {
      slot,
      jobsDir: o.jobsDir,
      queues: o.queues,
      redisUrl: o.redisUrl,
      prefix: o.prefix,
      shards: o.shards,
      concurrency: o.concurrency,
      leaseMs: o.leaseMs,
      // The supervisor kills a draining process at graceMs; should it be gone, the process hands
      // its jobs back a little later instead of running on forever.
      closeTimeoutMs: o.graceMs + 2_000,
      stuckAfterMs: o.stuckAfterMs,
    };
  }

  private spawn(slot: number): WorkerProcess {
    const p = new WorkerProcess(this.childConfig(slot));
    this.processes.add(p);
    this.log.info({ slot, workerPid: p.pid }, `worker ${slot} started (pid ${p.pid})`);
    p.on('health', (rssMb) => {
      const max = this.options.maxMemoryMb;
      if (
        max !== undefined &&
        rssMb > max &&
        p.state === 'running' &&
        !p.retiring &&
        this.state === 'running'
      ) {
        this.log.warn(
          { slot, workerPid: p.pid, rssMb, maxMemoryMb: max },
          `worker ${slot} uses ${rssMb} MB, over ${max} MB: replacing it once it has drained`,
        );
        void this.replace(p, this.options.graceMs);
      }
    });
    p.on('stuck', (jobs) => {
      if (p.retiring || this.state !== 'running') return;
      this.log.error(
        { slot, workerPid: p.pid, jobs },
        `worker ${slot} runs a job past its timeout that ignores its AbortSignal: replacing the process`,
      );
      void this.replace(p, Math.min(this.options.graceMs, 10_000));
    });
    p.on('exit', (code, signal) => this.onExit(p, code, signal));
    return p;
  }

  private onExit(p: WorkerProcess, code: number | null, signal: NodeJS.Signals | null): void {
    this.processes.delete(p);
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (p.retiring || this.state === 'stopping') {
      this.log.info(
        { slot: p.slot, workerPid: p.pid, code, signal },
        `worker ${p.slot} (pid ${p.pid}) stopped (${how})`,
      );
      return;
    }
    if (this.state === 'starting') return;
    let policy = this.policies.get(p.slot);
    if (!policy) {
      policy = new RespawnPolicy();
      this.policies.set(p.slot, policy);
    }
    const { delayMs, streak } = policy.crashed(p.uptimeMs);
    this.log.error(
      {
        slot: p.slot,
        workerPid: p.pid,
        code,
        signal,
        uptimeMs: p.uptimeMs,
        respawnInMs: delayMs,
        crashStreak: streak,
      },
      `worker ${p.slot} (pid ${p.pid}) crashed (${how}) after ${Math.round(p.uptimeMs / 100) / 10} s; respawning in ${delayMs / 1000} s (crash ${streak} in a row)`,
    );
    this.restarts++;
    clearTimeout(this.respawns.get(p.slot));
    this.respawns.set(
      p.slot,
      setTimeout(() => {
        this.respawns.delete(p.slot);
        if (this.state === 'running' && p.slot <= this.wanted) this.spawn(p.slot);
      }, delayMs),
    );
  }

  /** Starts a replacement, and drains the old process once the new one is ready. */
  private async replace(old: WorkerProcess, deadlineMs: number): Promise<void> {
    old.retiring = true;
    const fresh = this.spawn(old.slot);
    await this.awaitReady([fresh]);
    await old.drain(deadlineMs);
  }

  /**
   * Resizes the pool and rolls every process onto freshly loaded job code: new processes first,
   * then the old ones drain, so no work is dropped and capacity never dips. If the new code does
   * not load, the new processes go and the old ones stay.
   */
  async reload(workers = this.wanted): Promise<{ from: number; to: number }> {
    if (this.state !== 'running') throw new Error(`cannot reload while ${this.state}`);
    const old = [...this.processes].filter((p) => !p.retiring);
    for (const timer of this.respawns.values()) clearTimeout(timer);
    this.respawns.clear();
    this.log.info(
      { from: old.length, to: workers },
      `reloading: ${old.length} → ${workers} worker processes`,
    );
    for (const p of old) p.retiring = true;
    const fresh = Array.from({ length: workers }, (_, i) => this.spawn(i + 1));
    const failure = await this.awaitReady(fresh);
    if (failure) {
      this.log.error(`reload abandoned, the old workers keep running: ${failure.message}`);
      for (const p of old) p.retiring = false;
      await Promise.all(fresh.map((p) => p.drain(0)));
      throw failure;
    }
    this.wanted = workers;
    await Promise.all(old.map((p) => p.drain(this.options.graceMs)));
    this.log.info({ workers }, `reloaded: ${workers} worker processes`);
    return { from: old.length, to: workers };
  }

  private stopAll(deadlineMs: number): Promise<void> {
    for (const timer of this.respawns.values()) clearTimeout(timer);
    this.respawns.clear();
    return Promise.all([...this.processes].map((p) => p.drain(deadlineMs))).then(() => undefined);
  }

  /** Graceful stop (the first SIGTERM or SIGINT); a second call kills everything at once. */
  async stop(reason: string): Promise<void> {
    if (this.state === 'stopping') {
      this.log.warn(`${reason} again: killing worker processes now`);
      for (const p of this.processes) p.kill();
      return;
    }
    this.state = 'stopping';
    const running = [...this.processes].reduce((n, p) => n + p.active, 0);
    this.log.info(
      { graceMs: this.options.graceMs, runningJobs: running },
      `${reason}: stopping; running jobs get ${this.options.graceMs / 1000} s to finish (again to force)`,
    );
    await this.stopAll(this.options.graceMs);
    await this.teardown();
    this.log.info('dueq stopped');
    this.finish(0);
  }

  private async teardown(): Promise<void> {
    await Promise.all(this.schedulers.map((s) => s.close()));
    await this.control?.close();
    const server = this.metricsServer;
    if (server) await new Promise((resolve) => server.close(resolve));
    await Promise.all(this.metricsQueues.map((q) => q.close()));
    this.pidFile?.release();
    this.removeSignals();
  }

  private readonly onTerm = () => void this.stop('SIGTERM');
  private readonly onInt = () => void this.stop('SIGINT');
  private readonly onHup = () => {
    this.reload().catch((error: Error) => this.log.error({ error: error.message }, 'reload failed'));
  };

  private installSignals(): void {
    process.on('SIGTERM', this.onTerm);
    process.on('SIGINT', this.onInt);
    process.on('SIGHUP', this.onHup);
  }

  private removeSignals(): void {
    process.off('SIGTERM', this.onTerm);
    process.off('SIGINT', this.onInt);
    process.off('SIGHUP', this.onHup);
  }

  private async onControl(request: ControlRequest): Promise<unknown> {
    switch (request.cmd) {
      case 'status':
        return this.status();
      case 'reload':
        return this.reload(request.workers);
      default:
        throw new Error(`unknown command ${JSON.stringify((request as { cmd?: unknown }).cmd)}`);
    }
  }

  status(): SupervisorStatus {
    return {
      pid: process.pid,
      startedAt: new Date(this.startedAt).toISOString(),
      uptimeMs: Date.now() - this.startedAt,
      state: this.state,
      queues: this.options.queues,
      jobsDir: this.options.jobsDir,
      workersWanted: this.wanted,
      concurrency: this.options.concurrency,
      workers: [...this.processes]
        .sort((a, b) => a.slot - b.slot)
        .map((p) => ({
          slot: p.slot,
          pid: p.pid,
          state: p.state,
          uptimeMs: p.uptimeMs,
          rssMb: p.rssMb,
          active: p.active,
        })),
      restarts: this.restarts,
      backpressure: this.schedulers.filter((s) => s.backpressure).map((s) => s.name),
    };
  }
}
