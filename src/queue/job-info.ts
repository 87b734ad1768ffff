import type { BackoffOption } from './backoff.js';
import { decodeBackoff } from './backoff.js';

export type JobState = 'delayed' | 'ready' | 'active' | 'dead' | 'done';

export interface JobError {
  message: string;
  /** The error's stack, cut to a bounded length. */
  stack: string;
  /** When it happened (Redis time, ms since the epoch). */
  at: number;
  attempt: number;
}

/** What `queue.getJob()` returns and worker events carry. Times are Redis time, ms since the epoch. */
export interface JobInfo<Data = unknown> {
  id: string;
  type: string;
  /** The job's data as added. When the stored JSON is unreadable, the raw string (see `dataInvalid`). */
  data: Data;
  dataInvalid?: true;
  state: JobState;
  /** Attempts started so far; the one running counts. */
  attempt: number;
  maxAttempts: number;
  priority: number;
  /** When the job is (or was) due to run. */
  dueAt: number;
  createdAt: number;
  /** When the current or last attempt started. */
  startedAt?: number;
  /** When it completed or died. */
  finishedAt?: number;
  /** Newest last; at most the last 10 attempts. */
  errors: JobError[];
  progress?: number;
  /** The handler's return value, for completed jobs kept with keepCompleted. */
  result?: unknown;
  key?: string;
  backoff: BackoffOption;
  timeoutMs?: number;
  /** `queue.cancel()` was called while the job ran. */
  cancelRequested?: true;
}

const STATES = new Set<string>(['delayed', 'ready', 'active', 'dead', 'done']);

function parseJson(raw: string | undefined): { ok: true; value: unknown } | { ok: false } {
  if (raw === undefined || raw === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch {
    return { ok: false };
  }
}

function optionalNumber(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  return Number.isFinite(n) ? n : undefined;
}

/** Reads a job hash. A hash with an unknown state reads as-is; `doctor` reports it. */
export function jobInfoFromHash(id: string, hash: Record<string, string>): JobInfo {
  const data = parseJson(hash.data);
  const errors = parseJson(hash.errors);
  const result = parseJson(hash.result);
  const info: JobInfo = {
    id,
    type: hash.type ?? '',
    data: data.ok ? data.value : hash.data,
    state: (STATES.has(hash.state ?? '') ? hash.state : (hash.state ?? 'unknown')) as JobState,
    attempt: optionalNumber(hash.attempt) ?? 0,
    maxAttempts: optionalNumber(hash.maxAttempts) ?? 1,
    priority: optionalNumber(hash.priority) ?? 0,
    dueAt: optionalNumber(hash.dueAt) ?? 0,
    createdAt: optionalNumber(hash.createdAt) ?? 0,
    errors: errors.ok && Array.isArray(errors.value) ? (errors.value as JobError[]) : [],
    backoff: decodeBackoff(hash.backoff),
  };
  if (!data.ok) info.dataInvalid = true;
  const startedAt = optionalNumber(hash.startedAt);
  if (startedAt !== undefined) info.startedAt = startedAt;
  const finishedAt = optionalNumber(hash.finishedAt);
  if (finishedAt !== undefined) info.finishedAt = finishedAt;
  const progress = optionalNumber(hash.progress);
  if (progress !== undefined) info.progress = progress;
  if (result.ok && result.value !== undefined) info.result = result.value;
  if (hash.key) info.key = hash.key;
  const timeoutMs = optionalNumber(hash.timeout);
  if (timeoutMs !== undefined) info.timeoutMs = timeoutMs;
  if (hash.cancel === '1') info.cancelRequested = true;
  return info;
}
