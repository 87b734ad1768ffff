import { type ChildProcess, fork } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { MetricsSnapshot } from '../metrics/job-metrics.js';
import { CHILD_CONFIG_ENV, type ChildConfig, type FromChild, type ToChild } from './messages.js';

const CHILD_ENTRY = new URL(
  `./child-main${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);

export type WorkerProcessState = 'starting' | 'running' | 'draining' | 'exited';

export interface WorkerProcessEvents {
  ready: [];
  health: [rssMb: number, active: number];
  stuck: [jobs: { id: string; type: string; overdueMs: number }[]];
  fatal: [message: string];
  exit: [code: number | null, signal: NodeJS.Signals | null];
}

/**
 * One worker process, as the supervisor sees it: its state, its last health report, and the
 * means to drain or kill it.
 */
export class WorkerProcess extends EventEmitter<WorkerProcessEvents> {
  readonly slot: number;
  readonly startedAt = Date.now();
  state: WorkerProcessState = 'starting';
  /** Being replaced or stopped on purpose: its exit is not a crash. */
  retiring = false;
  rssMb = 0;
  active = 0;
  /** Its latest job histograms, for the supervisor's /metrics. */
  metrics: MetricsSnapshot = [];
  private readonly child: ChildProcess;
  private killTimer: NodeJS.Timeout | undefined;
  readonly exited: Promise<void>;

  constructor(config: ChildConfig) {
    super();
    this.slot = config.slot;
    // From TypeScript sources (development), the child needs the TypeScript loader too.
    const execArgv = CHILD_ENTRY.pathname.endsWith('.ts') ? ['--import', 'tsx'] : [];
    this.child = fork(fileURLToPath(CHILD_ENTRY), [], {
      env: { ...process.env, [CHILD_CONFIG_ENV]: JSON.stringify(config) },
      execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (message: FromChild) => this.onMessage(message));
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.state = 'exited';
        clearTimeout(this.killTimer);
        this.emit('exit', code, signal);
        resolve();
      });
    });
    // A fork that cannot start at all (no such file) reports here; 'exit' follows.
    this.child.on('error', () => {});
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get uptimeMs(): number {
    return Date.now() - this.startedAt;
  }

  private onMessage(message: FromChild): void {
    switch (message.type) {
      case 'ready':
        if (this.state === 'starting') this.state = 'running';
        this.emit('ready');
        break;
      case 'health':
        this.rssMb = message.rssMb;
        this.active = message.active;
        this.metrics = message.metrics;
        this.emit('health', message.rssMb, message.active);
        break;
      case 'stuck':
        this.emit('stuck', message.jobs);
        break;
      case 'fatal':
        this.emit('fatal', message.message);
        break;
    }
  }

  /**
   * Asks the process to stop claiming and finish its running jobs; SIGKILLs it if it is still
   * there after `deadlineMs`. Jobs it was running then are recovered when their leases expire.
   */
  drain(deadlineMs: number): Promise<void> {
    if (this.state === 'exited') return this.exited;
    this.retiring = true;
    if (this.state !== 'draining') {
      this.state = 'draining';
      const message: ToChild = { type: 'drain' };
      if (this.child.connected) this.child.send(message);
      else this.child.kill('SIGTERM');
      this.killTimer = setTimeout(() => this.kill(), deadlineMs);
    }
    return this.exited;
  }

  kill(): void {
    if (this.state !== 'exited') this.child.kill('SIGKILL');
  }
}
