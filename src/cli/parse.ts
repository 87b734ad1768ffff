import { ValidationError } from '../errors.js';

/** An integer option given on the command line, checked with a message that names the flag. */
export function intOption(flag: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new ValidationError(
      `Expected \`${flag}\` to be a whole number from ${min} to ${max}, got "${value}"`,
    );
  }
  return n;
}

/** JSON given on the command line. */
export function jsonArgument(name: string, value: string | undefined): unknown {
  if (value === undefined) return null;
  try {
    return JSON.parse(value);
  } catch (error) {
    throw new ValidationError(
      `${name} is not valid JSON (${(error as Error).message}): ${value.slice(0, 60)}`,
    );
  }
}
