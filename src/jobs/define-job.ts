import { LIMITS } from '../defaults.js';
import { ValidationError } from '../errors.js';
import { type BackoffOption, encodeBackoff } from '../queue/backoff.js';
import { checkInteger, checkKnownKeys, checkPlainObject, checkString } from '../util/checks.js';
import { describe } from '../util/describe.js';
import { parseDuration } from '../util/duration.js';
import type { JobContext } from '../worker/job-context.js';

/** Marks objects made by defineJob; a registered symbol, so another copy of dueq recognises them. */
const DEFINITION = Symbol.for('dueq.jobDefinition');

// biome-ignore lint/suspicious/noExplicitAny: handlers choose their own data types
export type Handler<Data = any, Result = unknown> = (job: JobContext<Data>) => Promise<Result> | Result;

// biome-ignore lint/suspicious/noExplicitAny: handlers choose their own data types
export interface JobDefinitionInput<Data = any, Result = unknown> {
  /** The job type this handles, as given to `queue.add(type, …)`. */
  type: string;
  handle: Handler<Data, Result>;
  /** Attempts for jobs of this type added without their own `maxAttempts`. */
  maxAttempts?: number;
  /** Retry delays for jobs of this type added without their own `backoff`. */
  backoff?: BackoffOption;
  /** Per-attempt limit for jobs of this type added without their own `timeout`. */
  timeout?: number | string;
}

// biome-ignore lint/suspicious/noExplicitAny: handlers choose their own data types
export interface JobDefinition<Data = any, Result = unknown> {
  readonly type: string;
  readonly handle: Handler<Data, Result>;
  /**
   * The type's own options as stored in the queue's type registry ('<maxAttempts>|<backoff>|
   * <timeoutMs>', each part '' when not set), or undefined when it sets none.
   */
  readonly typeOptions: string | undefined;
  readonly [DEFINITION]: true;
}

const NAMES = ['type', 'handle', 'maxAttempts', 'backoff', 'timeout'] as const;

/**
 * One job type: its handler and the retry policy for jobs of this type. `dueq start --jobs ./jobs`
 * loads one file per type (`export default defineJob({ … })`); a Worker takes them too.
 * The options apply to jobs added without their own, from any producer, once a worker (or
 * `dueq start`) with this definition has registered it with the queue.
 */
// biome-ignore lint/suspicious/noExplicitAny: handlers choose their own data types
export function defineJob<Data = any, Result = unknown>(
  input: JobDefinitionInput<Data, Result>,
): JobDefinition<Data, Result> {
  const object = checkPlainObject('defineJob options', input);
  checkKnownKeys('defineJob options', object, NAMES);
  const type = checkString('type', input.type, LIMITS.typeLength);
  if (typeof input.handle !== 'function') {
    throw new ValidationError(
      `Expected \`handle\` of job type "${type}" to be a function, got ${describe(input.handle)}`,
    );
  }
  const maxAttempts =
    input.maxAttempts === undefined
      ? ''
      : String(checkInteger('maxAttempts', input.maxAttempts, 1, LIMITS.maxAttempts));
  const backoff = input.backoff === undefined ? '' : encodeBackoff(input.backoff);
  const timeout =
    input.timeout === undefined ? '' : String(parseDuration('timeout', input.timeout, LIMITS.delayMs));
  if (timeout === '0')
    throw new ValidationError('Expected `timeout` to be more than 0 ms; leave it out for no limit');
  const typeOptions = maxAttempts || backoff || timeout ? `${maxAttempts}|${backoff}|${timeout}` : undefined;
  return Object.freeze({ type, handle: input.handle, typeOptions, [DEFINITION]: true as const });
}

export function isJobDefinition(value: unknown): value is JobDefinition {
  return (
    typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[DEFINITION] === true
  );
}
