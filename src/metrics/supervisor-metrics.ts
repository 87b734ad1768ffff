import { createServer, type Server } from 'node:http';
import { AggregatorRegistry, Counter, Gauge, Registry } from 'prom-client';
import type { Queue } from '../queue/queue.js';
import type { MetricsSnapshot } from './job-metrics.js';

export interface SupervisorFacts {
  workersAlive(): number;
  restarts(): number;
  backpressure(queue: string): boolean;
  /** The last histogram snapshots of the live worker processes. */
  workerSnapshots(): MetricsSnapshot[];
}

type TotalName = 'added' | 'completed' | 'failed' | 'retried' | 'reclaimed' | 'dead';

const TOTALS: [TotalName, string][] = [
  ['added', 'Jobs added'],
  ['completed', 'Jobs completed'],
  ['failed', 'Job attempts that failed (a job that failed twice counts twice)'],
  ['retried', 'Failed attempts followed by a retry'],
  ['reclaimed', 'Jobs taken back from expired leases: their worker died or stalled'],
  ['dead', 'Jobs moved to the dead-letter queue'],
];

/**
 * What `dueq start --metrics-port` serves. Queue depths and totals are read from Redis at scrape
 * time (the same for every supervisor: take max() across them); processing-time and lateness
 * histograms, workers and restarts are this supervisor's own (sum them).
 */
export class SupervisorMetrics {
  private readonly registry = new Registry();

  constructor(
    private readonly queues: readonly Queue[],
    private readonly facts: SupervisorFacts,
  ) {
    const registers = [this.registry];
    const snapshots = async () =>
      Promise.all(this.queues.map(async (q) => ({ queue: q.name, s: await q.snapshot() })));
    new Gauge({
      name: 'dueq_jobs',
      help: 'Jobs in each state (done: kept completed jobs are not counted here)',
      labelNames: ['queue', 'state'],
      registers,
      collect: async function () {
        this.reset();
        for (const { queue, s } of await snapshots()) {
          for (const state of ['delayed', 'ready', 'active', 'dead'] as const)
            this.set({ queue, state }, s.counts[state]);
        }
      },
    });
    for (const [name, help] of TOTALS) {
      new Counter({
        name: `dueq_jobs_${name}_total`,
        help,
        labelNames: ['queue'],
        registers,
        collect: async function () {
          // The totals live in Redis; the counter reports their current value.
          this.reset();
          for (const queue of queues) this.inc({ queue: queue.name }, (await queue.totals())[name]);
        },
      });
    }
    new Gauge({
      name: 'dueq_oldest_ready_age_seconds',
      help: 'How long the oldest ready job has waited past its due time',
      labelNames: ['queue'],
      registers,
      collect: async function () {
        this.reset();
        for (const { queue, s } of await snapshots()) this.set({ queue }, s.oldestReadyAgeMs / 1000);
      },
    });
    new Gauge({
      name: 'dueq_queue_paused',
      help: '1 while the queue is paused',
      labelNames: ['queue'],
      registers,
      collect: async function () {
        this.reset();
        for (const { queue, s } of await snapshots()) this.set({ queue }, s.counts.paused ? 1 : 0);
      },
    });
    new Gauge({
      name: 'dueq_backpressure',
      help: '1 while promotion is held back because ready is full',
      labelNames: ['queue'],
      registers,
      collect() {
        this.reset();
        for (const queue of queues) this.set({ queue: queue.name }, facts.backpressure(queue.name) ? 1 : 0);
      },
    });
    new Gauge({
      name: 'dueq_workers_alive',
      help: 'Worker processes of this supervisor that are running',
      registers,
      collect() {
        this.set(facts.workersAlive());
      },
    });
    new Counter({
      name: 'dueq_worker_restarts_total',
      help: 'Worker processes of this supervisor respawned after a crash',
      registers,
      collect() {
        this.reset();
        this.inc(facts.restarts());
      },
    });
  }

  async render(): Promise<{ body: string; contentType: string }> {
    const workers = AggregatorRegistry.aggregate(this.facts.workerSnapshots()) as Registry;
    const merged = Registry.merge([this.registry, workers]);
    return { body: await merged.metrics(), contentType: merged.contentType };
  }
}

/** Serves GET /metrics; anything else is 404. */
export async function serveMetrics(metrics: SupervisorMetrics, port: number, host: string): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /metrics\n');
      return;
    }
    metrics.render().then(
      ({ body, contentType }) => response.writeHead(200, { 'content-type': contentType }).end(body),
      (error: Error) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`${error.message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
