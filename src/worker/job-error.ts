import { ERROR_HISTORY } from '../defaults.js';

/** Anything a handler throws, as an Error (a thrown string or object becomes one). */
export function toError(thrown: unknown): Error {
  if (thrown instanceof Error) return thrown;
  if (typeof thrown === 'string') return new Error(thrown);
  try {
    return new Error(`Non-error thrown: ${JSON.stringify(thrown)}`);
  } catch {
    return new Error(`Non-error thrown: ${String(thrown)}`);
  }
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters cut)`;
}

/** What is stored of an error: its message and stack, each cut to a bounded length (seed 002 §4.2). */
export function storedError(error: Error): { message: string; stack: string } {
  const message = error.message || error.name || 'Error';
  return {
    message: cut(message, ERROR_HISTORY.messageChars),
    stack: cut(error.stack ?? '', ERROR_HISTORY.stackChars),
  };
}

/** UnrecoverableError by class or by name, so that one from another copy of dueq counts too. */
export function isUnrecoverable(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error.name === 'UnrecoverableError' || (error as { code?: unknown }).code === 'DUEQ_UNRECOVERABLE')
  );
}
