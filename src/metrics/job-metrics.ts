import { type Histogram, Histogram as PromHistogram, Registry } from 'prom-client';
import type { Worker } from '../worker/worker.js';

/** The per-job histograms a worker process keeps and reports to its supervisor. */
export type MetricsSnapshot = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
const LATENESS_BUCKETS = [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 60];

/**
 * Processing time and lateness (start − due) of the jobs this process runs, by queue and type.
 * A supervisor sums its worker processes' snapshots (prom-client's AggregatorRegistry).
 */
export class JobMetrics {
  readonly registry = new Registry();
  private readonly duration: Histogram<'queue' | 'type' | 'outcome'>;
  private readonly lateness: Histogram<'queue' | 'type'>;

  constructor() {
    this.duration = new PromHistogram({
      name: 'dueq_job_duration_seconds',
      help: 'How long job attempts ran, by outcome (completed or failed)',
      labelNames: ['queue', 'type', 'outcome'],
      buckets: DURATION_BUCKETS,
      registers: [this.registry],
    });
    this.lateness = new PromHistogram({
      name: 'dueq_job_lateness_seconds',
      help: 'How late job attempts started: start minus due time',
      labelNames: ['queue', 'type'],
      buckets: LATENESS_BUCKETS,
      registers: [this.registry],
    });
  }

  attach(worker: Worker): void {
    const queue = worker.name;
    worker.on('active', (job) => {
      if (job.startedAt !== undefined)
        this.lateness.observe({ queue, type: job.type }, Math.max(job.startedAt - job.dueAt, 0) / 1000);
    });
    const ran =
      (outcome: 'completed' | 'failed') =>
      (job: { type: string; startedAt?: number; finishedAt?: number }) => {
        if (job.startedAt !== undefined && job.finishedAt !== undefined) {
          this.duration.observe(
            { queue, type: job.type, outcome },
            Math.max(job.finishedAt - job.startedAt, 0) / 1000,
          );
        }
      };
    worker.on('completed', ran('completed'));
    worker.on('failed', ran('failed'));
  }

  snapshot(): Promise<MetricsSnapshot> {
    return this.registry.getMetricsAsJSON();
  }
}
