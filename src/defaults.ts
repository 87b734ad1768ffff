/**
 * Every default dueq uses, in one place. Units are in the names.
 */

/** Key prefix: a queue named `orders` lives under `dueq:{orders}:…`. */
export const DEFAULT_PREFIX = 'dueq';

/** Attempts a job gets before it goes to the dead-letter queue. */
export const DEFAULT_MAX_ATTEMPTS = 3;

/** Retry delays: 1 s, 2 s, 4 s … doubling, never more than an hour. */
export const DEFAULT_BACKOFF = { type: 'exponential', delay: 1_000, max: 3_600_000, jitter: 0 } as const;

/** Largest job data accepted by `add`, as UTF-8 JSON bytes. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 512 * 1024;

/** Jobs one Worker runs at once. */
export const DEFAULT_CONCURRENCY = 16;

/** How long a claimed job is leased to its worker before the scheduler may reclaim it. */
export const DEFAULT_LEASE_MS = 30_000;

/** Grace period of `worker.close()` for in-flight jobs. */
export const DEFAULT_CLOSE_TIMEOUT_MS = 30_000;

/** Upper bounds of the numbers a caller may set, so that a typo cannot store nonsense. */
export const LIMITS = {
  maxAttempts: 1_000_000,
  /** Priorities are packed into a sorted-set score with a 32-bit sequence: 2^20 levels fit. */
  priority: 1_000_000,
  concurrency: 10_000,
  /** About 100 years: larger delays are typos, and bigger numbers lose precision as scores. */
  delayMs: 100 * 365 * 24 * 3_600_000,
  idLength: 256,
  typeLength: 200,
  keyLength: 512,
  queueNameLength: 100,
  backoffTableLength: 100,
} as const;

/**
 * How many jobs one script moves at most. Every move is batch-limited so that no script holds
 * Redis for more than about a millisecond, even when 100k jobs fall due in the same instant.
 */
export const BATCH = {
  /** Jobs per `addBulk` script call. */
  add: 250,
  /** Due jobs one promote pass moves from `delayed` to `ready`. */
  promote: 100,
  /** Expired leases one reclaim pass handles. */
  reclaim: 100,
  /**
   * Completions acknowledged in one script call. 50 rather than 100: shorter completes let the
   * next claim in sooner, which drains a burst (W4) ~10 % faster and W3 ~8 %, for ~5 % of W2.
   */
  complete: 50,
  /** Dead jobs one replay or purge pass moves. */
  dead: 250,
  /** Completed jobs one retention pass deletes. */
  retention: 100,
} as const;

/** Errors kept on a job hash (oldest dropped first) and how much of each is kept. */
export const ERROR_HISTORY = { count: 10, messageChars: 1_000, stackChars: 2_000 } as const;

/** The Scheduler's loops. */
export const SCHEDULER = {
  /** Longest sleep of the promoter between passes; it also wakes at the next due time. */
  promoteIntervalMs: 1_000,
  /** Expired leases are looked for at least this often (DESIGN §1: at least every second). */
  reclaimIntervalMs: 1_000,
  retentionIntervalMs: 10_000,
  /** Promotion stops while `ready` holds this many jobs or more (backpressure). */
  maxReady: 50_000,
} as const;

/** The Worker's idle wait. */
export const WORKER = {
  /**
   * An idle worker blocks on the wake list this long, then claims once anyway: a safety net
   * for a wake token that went to a worker that died before using it.
   */
  blockSeconds: 5,
  /** Extra time before a blocked call is presumed stuck on a dead connection. */
  blockWatchdogMs: 3_000,
  /** Longest local timer for the next due job; it is re-armed from fresh Redis time. */
  maxTimerMs: 60_000,
  /** Backoff after a failed claim (Redis down): first, then doubling to the max. */
  retryMinMs: 100,
  retryMaxMs: 5_000,
  /** Expired leases are also reclaimed by workers, so that a deployment without a Scheduler recovers. */
  reclaimIntervalMs: 5_000,
  /** A job claimed ahead that waited this long for a slot goes back to the queue. */
  prefetchHoldMs: 500,
} as const;

/** Schedules (cron and every): how the Scheduler turns them into jobs. */
export const SCHEDULES = {
  /** Occurrences are created this long before their fire time, so workers run them on time. */
  lookaheadMs: 1_000,
  /** A fire time more than this far past when a Scheduler gets to it was missed (none ran). */
  missedAfterMs: 1_000,
  /** catchUp 'all' creates at most this many missed occurrences per pass. */
  maxCatchUp: 1_000,
  /** Longest sleep of the materializer between passes. */
  intervalMs: 500,
  /** Occurrence ids remembered per schedule (to drop its waiting ones on unschedule). */
  recent: 50,
  /** Shortest `every`. */
  minEveryMs: 1_000,
} as const;

/** job.once(): how long a result is remembered by default (seed 002 §4.1: a day covers redeliveries). */
export const ONCE_DEFAULT_TTL_MS = 24 * 3_600_000;
