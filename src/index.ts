export {
  BadJobDataError,
  ClosedError,
  DueqError,
  type DueqErrorCode,
  InvalidStateError,
  JobCancelledError,
  JobNotFoundError,
  JobTimeoutError,
  LeaseLostError,
  NoHandlerError,
  PayloadTooLargeError,
  RedisError,
  ShutdownError,
  UnrecoverableError,
  ValidationError,
} from './errors.js';
export type { BackoffOption } from './queue/backoff.js';
export type { DeadLetters } from './queue/dead-letters.js';
export type { DoctorReport, Problem } from './queue/doctor.js';
export type { JobError, JobInfo, JobState } from './queue/job-info.js';
export type { DefaultJobOptions, JobOptions, KeepCompleted } from './queue/job-options.js';
export {
  type BulkJob,
  type CancelResult,
  Queue,
  type QueueCounts,
  type QueueOptions,
} from './queue/queue.js';
export type { ConnectionOption } from './redis/connection.js';
export { Scheduler, type SchedulerEvents, type SchedulerOptions } from './scheduler/scheduler.js';
export { JobContext, RetryLater } from './worker/job-context.js';
export {
  type Handler,
  type Handlers,
  Worker,
  type WorkerEvents,
  type WorkerOptions,
} from './worker/worker.js';
