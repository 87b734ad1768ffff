/** What a supervisor and its worker processes say to each other over the IPC channel. */
import type { MetricsSnapshot } from '../metrics/job-metrics.js';

/** Everything a worker process needs, passed in its environment as JSON. */
export interface ChildConfig {
  /** The worker's slot number, for logs (1…N). */
  slot: number;
  jobsDir: string;
  queues: string[];
  redisUrl: string;
  prefix: string;
  shards: number | undefined;
  concurrency: number;
  leaseMs: number;
  /** How long close() waits for running jobs before handing them back, were the supervisor gone. */
  closeTimeoutMs: number;
  /** A handler this long past its timeout makes the process ask to be replaced. */
  stuckAfterMs: number;
}

export const CHILD_CONFIG_ENV = 'DUEQ_CHILD_CONFIG';

export type ToChild = { type: 'drain' };

export type FromChild =
  | { type: 'ready'; types: string[] }
  | { type: 'health'; rssMb: number; active: number; metrics: MetricsSnapshot }
  | { type: 'stuck'; jobs: { id: string; type: string; overdueMs: number }[] }
  | { type: 'fatal'; message: string };
