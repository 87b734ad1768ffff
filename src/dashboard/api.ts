import { LIMITS } from '../defaults.js';
import { InvalidStateError, JobNotFoundError, ValidationError } from '../errors.js';
import { listQueues } from '../queue/discovery.js';
import type { JobState } from '../queue/job-info.js';
import { Queue } from '../queue/queue.js';
import type { Client } from '../redis/connection.js';
import { checkQueueName } from '../redis/keys.js';
import { checkString } from '../util/checks.js';

/**
 * The dashboard's JSON API. Everything goes through the public inspection and action API of
 * Queue (counts, snapshot, jobs, getJob, series, schedules, cancel, runNow, dead.*, pause) —
 * never raw keys — so the dashboard shows exactly what a library user would see.
 */

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface ApiRequest {
  method: string;
  /** Path segments after /api/. */
  path: string[];
  query: URLSearchParams;
}

function int(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) {
    throw new HttpError(400, `Expected ${name} to be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return n;
}

const RANGES: Record<string, number> = { '15m': 15 * 60_000, '1h': 3_600_000, '3h': 3 * 3_600_000 };

export class DashboardApi {
  private readonly queues = new Map<string, Queue>();

  constructor(
    private readonly redis: Client,
    private readonly prefix: string,
  ) {}

  private queue(name: string | undefined): Queue {
    let checked: string;
    try {
      checked = checkQueueName(name);
    } catch (error) {
      throw new HttpError(400, (error as Error).message);
    }
    let queue = this.queues.get(checked);
    if (!queue) {
      queue = new Queue(checked, { connection: this.redis, prefix: this.prefix });
      this.queues.set(checked, queue);
    }
    return queue;
  }

  private jobId(raw: string | undefined): string {
    try {
      return checkString('job id', raw, LIMITS.idLength);
    } catch (error) {
      throw new HttpError(400, (error as Error).message);
    }
  }

  async handle(request: ApiRequest): Promise<unknown> {
    try {
      return await this.route(request);
    } catch (error) {
      if (error instanceof HttpError) throw error;
      if (error instanceof ValidationError) throw new HttpError(400, error.message);
      if (error instanceof JobNotFoundError) throw new HttpError(404, error.message);
      if (error instanceof InvalidStateError) throw new HttpError(409, error.message);
      throw error;
    }
  }

  private async route({ method, path, query }: ApiRequest): Promise<unknown> {
    const [head, name, section, id, action] = path;
    const get = method === 'GET';
    if (head === 'overview' && path.length === 1 && get) return this.overview();
    if (head === 'lookup' && path.length === 1 && get)
      return this.lookup(this.jobId(query.get('id') ?? undefined));
    if (head !== 'queues' || !name) throw new HttpError(404, `No such API route: /api/${path.join('/')}`);
    const queue = this.queue(name);
    if (path.length === 2 && get) return this.queueDetail(queue);
    if (section === 'pause' && path.length === 3 && method === 'POST')
      return queue.pause().then(() => ({ paused: true }));
    if (section === 'resume' && path.length === 3 && method === 'POST')
      return queue.resume().then(() => ({ paused: false }));
    if (section === 'series' && path.length === 3 && get) {
      const range = query.get('range') ?? '15m';
      const rangeMs = RANGES[range];
      if (!rangeMs)
        throw new HttpError(
          400,
          `Expected range to be one of ${Object.keys(RANGES).join(', ')}, got "${range}"`,
        );
      return queue.series({
        rangeMs,
        stepMs: rangeMs > 3_600_000 ? 60_000 : rangeMs > 15 * 60_000 ? 30_000 : 10_000,
      });
    }
    if (section === 'events' && path.length === 3 && get)
      return queue.recentEvents({ count: int(query, 'count', 50, 1, 500) });
    if (section === 'schedules' && path.length === 3 && get) return queue.schedules();
    if (section === 'dead' && id === 'replay' && path.length === 4 && method === 'POST') {
      return { replayed: await queue.dead.replay({ limit: int(query, 'limit', 10, 1, 1_000_000) }) };
    }
    if (section === 'jobs' && path.length === 3 && get) {
      const state = (query.get('state') ?? 'ready') as JobState;
      const offset = int(query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
      const limit = int(query, 'limit', 50, 1, 500);
      const [jobs, counts] = await Promise.all([queue.jobs(state, { offset, limit }), queue.counts()]);
      const total = state === 'done' ? undefined : counts[state as Exclude<JobState, 'done'>];
      return { state, offset, limit, total, jobs };
    }
    if (section === 'jobs' && id !== undefined) {
      const jobId = this.jobId(decodeURIComponent(id));
      if (path.length === 4 && get) {
        const job = await queue.getJob(jobId);
        if (!job) throw new HttpError(404, `No job "${jobId}" in queue "${queue.name}"`);
        return job;
      }
      if (path.length === 5 && method === 'POST') {
        if (action === 'run-now') return queue.runNow(jobId).then(() => ({ ok: true }));
        if (action === 'cancel') {
          const result = await queue.cancel(jobId);
          if (result === 'not-found') throw new HttpError(404, `No job "${jobId}" in queue "${queue.name}"`);
          return { result };
        }
        if (action === 'remove') return queue.dead.remove(jobId).then(() => ({ ok: true }));
      }
    }
    if (!get && method !== 'POST') throw new HttpError(405, `Method ${method} is not allowed`);
    throw new HttpError(404, `No such API route: ${method} /api/${path.join('/')}`);
  }

  private async overview() {
    const names = await listQueues(this.redis, this.prefix);
    const queues = await Promise.all(
      names.map(async (name) => {
        const queue = this.queue(name);
        const [snapshot, schedules] = await Promise.all([queue.snapshot(), queue.schedules()]);
        return { name, ...snapshot, schedules: schedules.length };
      }),
    );
    return { prefix: this.prefix, queues };
  }

  private async queueDetail(queue: Queue) {
    const [snapshot, schedules] = await Promise.all([queue.snapshot(), queue.schedules()]);
    return { name: queue.name, ...snapshot, schedules };
  }

  /** Finds a job by id in every queue. */
  private async lookup(id: string) {
    for (const name of await listQueues(this.redis, this.prefix)) {
      const job = await this.queue(name).getJob(id);
      if (job) return { queue: name, job };
    }
    throw new HttpError(404, `No job "${id}" in any queue`);
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }
}
