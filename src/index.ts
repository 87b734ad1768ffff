/**
 * dueq: a Redis-backed delayed-job queue and distributed task scheduler.
 * Everything public is named here; nothing runs at import.
 */
export { acquireLock, Lock, type LockOptions, withLock } from './coordination/lock.js';
export { type OnceOptions, once } from './coordination/once.js';
export {
  BadJobDataError,
  ClosedError,
  DueqError,
  type DueqErrorCode,
  InvalidStateError,
  JobCancelledError,
  JobLoadError,
  JobNotFoundError,
  JobTimeoutError,
  LeaseLostError,
  LockBusyError,
  LockLostError,
  NoHandlerError,
  NotReplicatedError,
  PayloadTooLargeError,
  RedisError,
  ShutdownError,
  UnrecoverableError,
  ValidationError,
} from './errors.js';
export {
  type JobEvent,
  type JobEventName,
  QueueEvents,
  type QueueEventsEvents,
  type QueueEventsOptions,
  type StreamEvent,
} from './events/queue-events.js';
export type { Series, SeriesPoint } from './events/series.js';
export { defineJob, type Handler, type JobDefinition, type JobDefinitionInput } from './jobs/define-job.js';
export type { BackoffOption } from './queue/backoff.js';
export type { DeadLetters } from './queue/dead-letters.js';
export { listQueues } from './queue/discovery.js';
export type { DoctorReport, Problem } from './queue/doctor.js';
export type { JobError, JobInfo, JobState } from './queue/job-info.js';
export type { DefaultJobOptions, JobOptions, KeepCompleted } from './queue/job-options.js';
export {
  type BulkJob,
  type CancelResult,
  Queue,
  type QueueCounts,
  type QueueOptions,
  type QueueSnapshot,
  type QueueTotals,
} from './queue/queue.js';
export type { ConnectionOption } from './redis/connection.js';
export type { FireReport } from './scheduler/materializer.js';
export { Scheduler, type SchedulerEvents, type SchedulerOptions } from './scheduler/scheduler.js';
export type { ScheduleInfo } from './schedules/info.js';
export type { CatchUp } from './schedules/plan.js';
export type { ScheduleOptions } from './schedules/spec.js';
export { JobContext, RetryLater } from './worker/job-context.js';
export {
  type Handlers,
  type StuckJob,
  Worker,
  type WorkerEvents,
  type WorkerOptions,
} from './worker/worker.js';
