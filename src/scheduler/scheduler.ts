import { EventEmitter } from 'node:events';
import { LIMITS, SCHEDULER } from '../defaults.js';
import type { Queue } from '../queue/queue.js';
import { resolveQueueTarget } from '../queue/target.js';
import { type ConnectionOption, closeClient, type OpenedClient, openClient } from '../redis/connection.js';
import { Store } from '../redis/store.js';
import { checkInteger, checkKnownKeys, checkPlainObject } from '../util/checks.js';
import { toError } from '../worker/job-error.js';
import { type FireReport, Materializer } from './materializer.js';
import { Promoter } from './promoter.js';
import { Reclaimer } from './reclaimer.js';
import { Retention } from './retention.js';

export interface SchedulerOptions {
  /** @default the Queue's, or localhost:6379 */
  connection?: ConnectionOption;
  /** @default the Queue's, or 'dueq' */
  prefix?: string;
  /** Promotion stops while `ready` holds this many jobs (backpressure). @default 50000 */
  maxReady?: number;
  /** Longest sleep between promote passes; it also wakes at the next due time. @default 1000 */
  promoteIntervalMs?: number;
  /** How often expired leases are looked for. @default 1000 */
  reclaimIntervalMs?: number;
  /** How often kept completed jobs past their limits are deleted. @default 10000 */
  retentionIntervalMs?: number;
  /** Serve the N shards of a queue given by name (see the Queue option `shards`). @default 1 */
  shards?: number;
}

export interface SchedulerEvents {
  /** Jobs taken back from expired leases: `reclaimed` in all, `dead` of those out of attempts. */
  reclaimed: [result: { reclaimed: number; dead: number }];
  /** `ready` reached maxReady with due jobs waiting: consumers are not keeping up. Once per episode. */
  backpressure: [info: { ready: number; maxReady: number }];
  /** A schedule made occurrences (`created`), or dropped some (`skipped`: overlap or catch-up). */
  fired: [report: FireReport];
  /** The backlog fell below maxReady again. */
  backpressureEnded: [info: { ready: number; maxReady: number }];
  error: [error: Error];
}

const OPTION_NAMES = [
  'connection',
  'prefix',
  'maxReady',
  'promoteIntervalMs',
  'reclaimIntervalMs',
  'retentionIntervalMs',
  'shards',
] as const;

/**
 * The queue's background duties, each its own loop: promote due jobs, reclaim expired leases,
 * trim retention. Every step is one script that is safe to run concurrently, so any number of
 * Schedulers may run at once, on any number of machines.
 */
export class Scheduler extends EventEmitter<SchedulerEvents> {
  readonly name: string;
  private readonly opened: OpenedClient;
  /** Its loops: promote, reclaim, retention and schedules, for each shard (one for a plain queue). */
  private readonly loops: (Promoter | Reclaimer | Retention | Materializer)[] = [];
  private readonly maxReady: number;
  /** The shards whose `ready` is at its cap. */
  private readonly backlogged = new Set<number>();
  private state: 'new' | 'running' | 'closed' = 'new';

  constructor(queue: string | Queue, options: SchedulerOptions = {}) {
    super();
    const opts = checkPlainObject('Scheduler options', options);
    checkKnownKeys('Scheduler options', opts, OPTION_NAMES);
    const target = resolveQueueTarget(queue, options);
    this.name = target.name;
    this.maxReady =
      options.maxReady === undefined
        ? SCHEDULER.maxReady
        : checkInteger('maxReady', options.maxReady, 1, 1e9);
    const interval = (name: string, value: number | undefined, fallback: number) =>
      value === undefined ? fallback : checkInteger(name, value, 10, LIMITS.delayMs);
    const promoteMs = interval('promoteIntervalMs', options.promoteIntervalMs, SCHEDULER.promoteIntervalMs);
    const reclaimMs = interval('reclaimIntervalMs', options.reclaimIntervalMs, SCHEDULER.reclaimIntervalMs);
    const retentionMs = interval(
      'retentionIntervalMs',
      options.retentionIntervalMs,
      SCHEDULER.retentionIntervalMs,
    );

    this.opened = openClient(target.connection, {
      name: `dueq:scheduler:${this.name}`,
      waitForRedis: true,
    });
    if (this.opened.owned) this.opened.client.on('error', (err: Error) => this.reportError(err));
    const onError = (error: unknown) => this.reportError(toError(error));
    target.lanes.forEach((keys, shard) => {
      const store = new Store(this.opened.client, keys);
      this.loops.push(
        new Promoter(
          store,
          this.maxReady,
          promoteMs,
          (reply) => this.afterPromote(shard, reply.readyLength, reply.backpressure),
          onError,
        ),
        new Reclaimer(store, reclaimMs, (result) => this.emit('reclaimed', result), onError),
        new Retention(store, retentionMs, onError),
        new Materializer(store, (report) => this.emit('fired', report), onError),
      );
    });
  }

  /** Starts the loops; resolves once Redis answered. */
  async start(): Promise<void> {
    if (this.state !== 'new') return;
    this.state = 'running';
    await this.opened.client.ping();
    for (const loop of this.loops) loop.start();
  }

  /** True while `ready` (of any shard) is at its cap with due jobs held back. */
  get backpressure(): boolean {
    return this.backlogged.size > 0;
  }

  private afterPromote(shard: number, ready: number, backpressure: boolean): void {
    if (backpressure && !this.backlogged.has(shard)) {
      this.backlogged.add(shard);
      this.emit('backpressure', { ready, maxReady: this.maxReady });
    } else if (!backpressure && this.backlogged.has(shard) && ready < this.maxReady) {
      this.backlogged.delete(shard);
      this.emit('backpressureEnded', { ready, maxReady: this.maxReady });
    }
  }

  private reportError(error: Error): void {
    if (this.listenerCount('error') > 0) this.emit('error', error);
    else console.error(`dueq scheduler "${this.name}": ${error.message}`);
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    await Promise.all(this.loops.map((loop) => loop.stop()));
    await closeClient(this.opened);
  }
}
