import { DueqError } from '../errors.js';
import { pcErr } from './colors.js';

/** Exit codes of every command: stable, so scripts can branch on them. */
export const EXIT = {
  ok: 0,
  /** Something failed (Redis unreachable, a timeout, a bug). */
  failure: 1,
  /** Bad arguments or options. */
  usage: 2,
  /** No such job, queue or running supervisor. */
  notFound: 3,
  /** The request conflicts with the current state (already running, job is active, …). */
  conflict: 4,
  /** doctor found problems it did not repair. */
  unhealthy: 5,
  /** The jobs directory could not be loaded (EX_CONFIG). */
  config: 78,
} as const;

/** An error a command raises on purpose, with its exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export function exitCodeFor(error: unknown): number {
  if (error instanceof CliError) return error.exitCode;
  if (error instanceof DueqError) {
    switch (error.code) {
      case 'DUEQ_INVALID_ARGUMENT':
      case 'DUEQ_PAYLOAD_TOO_LARGE':
        return EXIT.usage;
      case 'DUEQ_JOB_NOT_FOUND':
        return EXIT.notFound;
      case 'DUEQ_INVALID_STATE':
        return EXIT.conflict;
      case 'DUEQ_JOB_LOAD':
        return EXIT.config;
      default:
        return EXIT.failure;
    }
  }
  return EXIT.failure;
}

/** One clear line on stderr; the stack only with --verbose. */
export function printError(error: unknown, verbose: boolean): void {
  const message = error instanceof Error ? error.message : String(error);
  const line = (message.split('\n')[0] ?? message).trim();
  process.stderr.write(`${pcErr.red('dueq:')} ${line}\n`);
  if (verbose && error instanceof Error && error.stack) process.stderr.write(`${pcErr.dim(error.stack)}\n`);
}

export interface Output {
  readonly json: boolean;
  /** Prints a command's result: the JSON document, or the human rendering. */
  result(value: unknown, human: () => string): void;
  /** A note for people (stderr, so --json output stays clean). */
  note(text: string): void;
}

export function createOutput(json: boolean): Output {
  return {
    json,
    result(value, human) {
      if (json) process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
      else {
        const text = human();
        if (text) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
      }
    },
    note(text) {
      process.stderr.write(`${pcErr.dim(text)}\n`);
    },
  };
}
