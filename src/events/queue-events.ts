import { EventEmitter } from 'node:events';
import type { Queue } from '../queue/queue.js';
import { resolveQueueTarget } from '../queue/target.js';
import { type ConnectionOption, closeClient, type OpenedClient, openClient } from '../redis/connection.js';
import { checkKnownKeys, checkPlainObject } from '../util/checks.js';
import { toError } from '../worker/job-error.js';

/** One job's part of an event: its id, and what the event says of it. */
export interface JobEvent {
  jobId: string;
  type?: string;
  attempt?: number;
  /** When it happened (Redis time, ms): the stream entry's time. */
  at: number;
  /** active: how late it started, ms. */
  lateMs?: number;
  /** completed: how long the attempt ran, ms. */
  durationMs?: number;
  /** retrying, failed, dead: the error message. */
  error?: string;
  /** added, retrying, rescheduled: when it is due. */
  dueAt?: number;
  /** added by a schedule: its name. */
  schedule?: string;
  /** reclaimed: what became of it. */
  outcome?: 'retrying' | 'dead';
}

export type JobEventName =
  | 'added'
  | 'active'
  | 'completed'
  | 'failed'
  | 'retrying'
  | 'dead'
  | 'reclaimed'
  | 'rescheduled'
  | 'released'
  | 'cancelled'
  | 'replayed'
  | 'promoted';

export type QueueEventsEvents = { [name in JobEventName]: [event: JobEvent] } & {
  paused: [info: { at: number }];
  resumed: [info: { at: number }];
  error: [error: Error];
};

export interface QueueEventsOptions {
  connection?: ConnectionOption;
  prefix?: string;
  /** Where to start: '$' new events only (default), '0' everything still in the stream, or an entry id. */
  from?: string;
  /** How long one blocking read waits, ms. @default 2000 */
  blockMs?: number;
}

/** A raw stream entry decoded: its id, time, event name, and the jobs it lists. */
export interface StreamEvent {
  id: string;
  at: number;
  event: string;
  jobs: Record<string, unknown>[];
}

/** Columns whose values are numbers (a script may write them as text, which costs it less). */
const NUMERIC = new Set(['attempt', 'lateMs', 'durationMs', 'dueAt']);

/** Stream columns and the job field each one fills. */
const COLUMNS: Record<string, string> = {
  ids: 'id',
  types: 'type',
  attempts: 'attempt',
  lateMs: 'lateMs',
  durationMs: 'durationMs',
  dueAt: 'dueAt',
  errors: 'error',
  outcomes: 'outcome',
  schedules: 'schedule',
  states: 'state',
};

/**
 * Reads one stream entry: its event name, and its jobs zipped back from the columns the scripts
 * write (ids, types, attempts, …: one JSON array each).
 */
export function decodeEntry(id: string, fields: string[]): StreamEvent {
  let event = '';
  const columns: [string, unknown[]][] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const name = fields[i] as string;
    if (name === 'event') {
      event = fields[i + 1] as string;
      continue;
    }
    const field = COLUMNS[name];
    if (!field) continue;
    try {
      const values = JSON.parse(fields[i + 1] as string);
      // An empty Lua table is encoded as {}: no values.
      columns.push([field, Array.isArray(values) ? values : []]);
    } catch {
      // An unreadable column is left out; the others still count.
    }
  }
  const ids = columns.find(([field]) => field === 'id')?.[1] ?? [];
  const jobs = ids.map((_, k) => {
    const job: Record<string, unknown> = {};
    for (const [field, values] of columns) {
      const value = values[k];
      if (value === undefined || value === '') continue;
      job[field] = NUMERIC.has(field) && typeof value === 'string' ? Number(value) : value;
    }
    return job;
  });
  return { id, at: Number(id.split('-')[0]), event, jobs };
}

/**
 * Every change to a queue's jobs, as they happen, from any process on any machine: reads the
 * queue's capped event stream (XREAD BLOCK) on a connection of its own.
 * `failed` fires for every failed attempt (a retrying or dead one, or a reclaimed lease).
 */
export class QueueEvents extends EventEmitter<QueueEventsEvents> {
  readonly name: string;
  private readonly opened: OpenedClient;
  private readonly key: string;
  private readonly blockMs: number;
  private lastId: string;
  private closed = false;
  private readonly running: Promise<void>;
  private markReady!: () => void;
  private readonly ready = new Promise<void>((resolve) => {
    this.markReady = resolve;
  });

  constructor(queue: string | Queue, options: QueueEventsOptions = {}) {
    super();
    const o = checkPlainObject('QueueEvents options', options);
    checkKnownKeys('QueueEvents options', o, ['connection', 'prefix', 'from', 'blockMs']);
    const target = resolveQueueTarget(queue, options);
    this.name = target.name;
    this.key = target.keys.events;
    this.lastId = options.from ?? '$';
    this.blockMs = options.blockMs ?? 2_000;
    this.opened = openClient(target.connection, {
      name: `dueq:events:${this.name}`,
      waitForRedis: true,
      dedicated: true,
    });
    this.opened.client.on('error', (error: Error) => this.report(error));
    this.running = this.loop();
  }

  /** Resolves once events are being read: anything that happens after it is seen. */
  waitUntilReady(): Promise<void> {
    return this.ready;
  }

  private report(error: Error): void {
    if (this.closed) return;
    if (this.listenerCount('error') > 0) this.emit('error', error);
    else console.error(`dueq events "${this.name}": ${error.message}`);
  }

  private async loop(): Promise<void> {
    const client = this.opened.client;
    try {
      if (this.lastId === '$') {
        // Start from the current last entry, so nothing added between two reads is missed.
        const [last] = (await client.xrevrange(this.key, '+', '-', 'COUNT', 1)) as [string, string[]][];
        this.lastId = last?.[0] ?? '0-0';
      }
    } catch (error) {
      this.report(toError(error));
    }
    this.markReady();
    while (!this.closed) {
      try {
        const reply = (await client.xread(
          'COUNT',
          500,
          'BLOCK',
          this.blockMs,
          'STREAMS',
          this.key,
          this.lastId,
        )) as [string, [string, string[]][]][] | null;
        for (const [, entries] of reply ?? []) {
          for (const [id, fields] of entries) {
            this.lastId = id;
            this.dispatch(decodeEntry(id, fields));
          }
        }
      } catch (error) {
        if (this.closed) break;
        this.report(toError(error));
        await new Promise((r) => setTimeout(r, 1_000));
      }
    }
  }

  private dispatch(entry: StreamEvent): void {
    if (entry.event === 'paused' || entry.event === 'resumed') {
      this.emit(entry.event, { at: entry.at });
      return;
    }
    const name = entry.event as JobEventName;
    for (const job of entry.jobs) {
      const { id, ...rest } = job as { id: string };
      const event: JobEvent = { jobId: id, at: entry.at, ...rest };
      if (name === 'retrying' || name === 'dead') this.emit('failed', event);
      if (name === 'reclaimed') {
        this.emit('reclaimed', event);
        this.emit('failed', { ...event, error: 'Lease expired' });
        this.emit(event.outcome === 'dead' ? 'dead' : 'retrying', { ...event, error: 'Lease expired' });
        continue;
      }
      this.emit(name, event);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await closeClient(this.opened, true);
    await this.running;
  }
}
