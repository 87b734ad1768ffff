import { ValidationError } from '../errors.js';
import { describe } from './describe.js';

/**
 * Checks shared by every constructor and method that takes options. Each throws a
 * ValidationError whose message names the option, what was expected and what came.
 */

export function checkInteger(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ValidationError(
      `Expected \`${name}\` to be an integer from ${min} to ${max}, got ${describe(value)}`,
    );
  }
  return value;
}

export function checkNumber(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new ValidationError(
      `Expected \`${name}\` to be a number from ${min} to ${max}, got ${describe(value)}`,
    );
  }
  return value;
}

export function checkString(name: string, value: unknown, maxLength: number): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > maxLength) {
    throw new ValidationError(
      `Expected \`${name}\` to be a non-empty string of at most ${maxLength} characters, got ${describe(value)}`,
    );
  }
  // Control characters in ids and types make keys and logs unreadable and are always a mistake.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: this is the check for them
  if (/[\u0000-\u001f\u007f]/.test(value)) {
    throw new ValidationError(
      `Expected \`${name}\` to contain no control characters, got ${describe(value)}`,
    );
  }
  return value;
}

export function checkPlainObject(name: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ValidationError(`Expected \`${name}\` to be an object, got ${describe(value)}`);
  }
  return value as Record<string, unknown>;
}

/** Refuses option names the caller probably misspelled, instead of silently ignoring them. */
export function checkKnownKeys(name: string, value: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key) && value[key] !== undefined) {
      throw new ValidationError(`Unknown option \`${key}\` in ${name}; expected one of: ${known.join(', ')}`);
    }
  }
}
