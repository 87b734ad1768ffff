/**
 * Every error dueq throws or reports. Each has a stable `code` for programs and a one-line
 * `message` for people; the original error, when there is one, rides along as `cause`.
 */

export type DueqErrorCode =
  | 'DUEQ_INVALID_ARGUMENT'
  | 'DUEQ_PAYLOAD_TOO_LARGE'
  | 'DUEQ_JOB_NOT_FOUND'
  | 'DUEQ_INVALID_STATE'
  | 'DUEQ_CLOSED'
  | 'DUEQ_UNRECOVERABLE'
  | 'DUEQ_NO_HANDLER'
  | 'DUEQ_BAD_JOB_DATA'
  | 'DUEQ_JOB_TIMEOUT'
  | 'DUEQ_JOB_CANCELLED'
  | 'DUEQ_LEASE_LOST'
  | 'DUEQ_SHUTDOWN'
  | 'DUEQ_JOB_LOAD'
  | 'DUEQ_LOCK_BUSY'
  | 'DUEQ_LOCK_LOST'
  | 'DUEQ_NOT_REPLICATED'
  | 'DUEQ_REDIS';

export class DueqError extends Error {
  readonly code: DueqErrorCode;

  constructor(code: DueqErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A caller passed something dueq cannot accept. Nothing was written. */
export class ValidationError extends DueqError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('DUEQ_INVALID_ARGUMENT', message, options);
  }
}

/** The job's data, as JSON, is larger than the queue's `maxPayloadBytes`. Nothing was written. */
export class PayloadTooLargeError extends DueqError {
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(
      'DUEQ_PAYLOAD_TOO_LARGE',
      `Job data is ${bytes} bytes as JSON, over the limit of ${limit} bytes (Queue option maxPayloadBytes)`,
    );
  }
}

export class JobNotFoundError extends DueqError {
  constructor(
    readonly queue: string,
    readonly jobId: string,
  ) {
    super('DUEQ_JOB_NOT_FOUND', `No job "${jobId}" in queue "${queue}"`);
  }
}

/** The job exists but is not in a state that allows the operation. Nothing was changed. */
export class InvalidStateError extends DueqError {
  constructor(
    readonly jobId: string,
    readonly state: string,
    wanted: string,
  ) {
    super('DUEQ_INVALID_STATE', `Job "${jobId}" is ${state}; ${wanted}`);
  }
}

export class ClosedError extends DueqError {
  constructor(what: string) {
    super('DUEQ_CLOSED', `${what} is closed`);
  }
}

/**
 * Throw this from a handler to send the job straight to the dead-letter queue: retrying cannot
 * help (bad input, a permanent refusal from a downstream service).
 */
export class UnrecoverableError extends DueqError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('DUEQ_UNRECOVERABLE', message, options);
  }
}

/** The worker that claimed the job has no handler for its type. */
export class NoHandlerError extends DueqError {
  constructor(readonly jobType: string) {
    super('DUEQ_NO_HANDLER', `No handler for job type "${jobType}" in this worker`);
  }
}

/** The job's stored data is not valid JSON; no retry can fix that, so the job goes to dead. */
export class BadJobDataError extends DueqError {
  constructor(jobId: string, options?: { cause?: unknown }) {
    super('DUEQ_BAD_JOB_DATA', `Job "${jobId}" has data that is not valid JSON`, options);
  }
}

/** The attempt ran past the job's `timeout`; its AbortSignal fired with this reason. */
export class JobTimeoutError extends DueqError {
  constructor(readonly timeoutMs: number) {
    super('DUEQ_JOB_TIMEOUT', `Job attempt timed out after ${timeoutMs} ms`);
  }
}

/** `queue.cancel()` was called while the job ran; its AbortSignal fired with this reason. */
export class JobCancelledError extends DueqError {
  constructor(jobId: string) {
    super('DUEQ_JOB_CANCELLED', `Job "${jobId}" was cancelled`);
  }
}

/**
 * This worker no longer holds the job's lease (it expired and the job was reclaimed, or it was
 * handed back): another worker may be running it, so this worker's result is refused.
 */
export class LeaseLostError extends DueqError {
  constructor(jobId: string) {
    super('DUEQ_LEASE_LOST', `Lost the lease on job "${jobId}"; its result was not recorded`);
  }
}

/** The worker is closing and its grace period ran out; the job was handed back to the queue. */
export class ShutdownError extends DueqError {
  constructor() {
    super('DUEQ_SHUTDOWN', 'Worker closed before the job finished; the job was handed back');
  }
}

/** withLock() could not get the lock in time, or once() found its key still running elsewhere. */
export class LockBusyError extends DueqError {
  constructor(message: string) {
    super('DUEQ_LOCK_BUSY', message);
  }
}

/** A lock (or a once() run) was lost while its holder still worked: its TTL ran out, or it was taken. */
export class LockLostError extends DueqError {
  constructor(name: string) {
    super(
      'DUEQ_LOCK_LOST',
      `Lost the lock "${name}": its TTL ran out before it was extended, or another owner holds it`,
    );
  }
}

/** A file in the jobs directory could not be loaded, or does not define a job. */
export class JobLoadError extends DueqError {
  constructor(
    readonly file: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('DUEQ_JOB_LOAD', `${file}: ${message}`, options);
  }
}

/**
 * An add with `durability` reached the master, but not the replicas it asked for in time: a
 * failover now could lose it. The job may well exist; adding it again with the same `id` is safe.
 */
export class NotReplicatedError extends DueqError {
  constructor(
    readonly wanted: number,
    readonly got: number,
    timeoutMs: number,
  ) {
    super(
      'DUEQ_NOT_REPLICATED',
      `The add reached ${got} of ${wanted} replica(s) within ${timeoutMs} ms; add it again with the same id to be sure`,
    );
  }
}

/** A Redis reply dueq did not expect, or a connection failure inside a loop. */
export class RedisError extends DueqError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('DUEQ_REDIS', message, options);
  }
}
