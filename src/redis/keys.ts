import { LIMITS } from '../defaults.js';
import { ValidationError } from '../errors.js';
import { describe } from '../util/describe.js';

/**
 * Every key of one queue, built in one place. All share the hash tag `{name}`, so a queue lives
 * in one Redis Cluster slot and every script may touch all of it (DESIGN §2).
 */
export interface QueueKeys {
  /** `dueq:{orders}:` — the common start of every key below. */
  readonly base: string;
  /** Start of job hash keys: `job:<id>`. */
  readonly jobPrefix: string;
  /** Start of dedup keys: `key:<k>` → id of the waiting or running job that holds it. */
  readonly dedupPrefix: string;
  readonly delayed: string;
  readonly ready: string;
  /** Ready jobs with priority > 0, scored so that ZPOPMIN gives the highest priority, oldest first. */
  readonly prio: string;
  readonly active: string;
  readonly dead: string;
  readonly done: string;
  readonly meta: string;
  readonly stats: string;
  readonly wake: string;
  /** Schedules: name → the schedule as JSON (queue/schedules). */
  readonly schedules: string;
  /** Schedules: name → id of the occurrence that last went to run (for overlap 'skip'). */
  readonly scheduleCurrent: string;
  /** Type registry: job type → its defineJob options, applied to adds that do not set their own. */
  readonly types: string;
  /** Event stream: one entry per state change call, listing the jobs it moved (capped). */
  readonly events: string;
  /** Per-10-second counters and lateness histograms, for charts: `<bucket ms>|<metric>` → n. */
  readonly series: string;
  /** Pub/Sub channel: cancel notices for running jobs. */
  readonly control: string;
}

// '#<n>' at the end names a shard of a sharded queue (queue/shards.ts).
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]*(#\d{1,2})?$/;

export function checkQueueName(name: unknown): string {
  if (typeof name !== 'string' || name.length > LIMITS.queueNameLength || !NAME_PATTERN.test(name)) {
    throw new ValidationError(
      `Expected queue name to be 1 to ${LIMITS.queueNameLength} characters of letters, digits, '.', '_', ':' or '-' (starting with a letter or digit; '#<n>' at the end names a shard), got ${describe(name)}`,
    );
  }
  return name;
}

export function checkPrefix(prefix: unknown): string {
  if (typeof prefix !== 'string' || !/^[A-Za-z0-9._:-]{1,50}$/.test(prefix)) {
    throw new ValidationError(
      `Expected \`prefix\` to be 1 to 50 characters of letters, digits, '.', '_', ':' or '-', got ${describe(prefix)}`,
    );
  }
  return prefix;
}

export function queueKeys(prefix: string, name: string): QueueKeys {
  const base = `${prefix}:{${name}}:`;
  return {
    base,
    jobPrefix: `${base}job:`,
    dedupPrefix: `${base}key:`,
    delayed: `${base}delayed`,
    ready: `${base}ready`,
    prio: `${base}prio`,
    active: `${base}active`,
    dead: `${base}dead`,
    done: `${base}done`,
    meta: `${base}meta`,
    stats: `${base}stats`,
    wake: `${base}wake`,
    types: `${base}types`,
    schedules: `${base}schedules`,
    scheduleCurrent: `${base}schedule-current`,
    control: `${base}control`,
    events: `${base}events`,
    series: `${base}series`,
  };
}

export function jobKey(keys: QueueKeys, id: string): string {
  return keys.jobPrefix + id;
}
