import ms from 'ms';
import { ValidationError } from '../errors.js';
import { describe } from './describe.js';

/**
 * Reads a duration given as milliseconds (`1500`) or as a string (`'30m'`, `'2 hours'`, `'1.5s'`),
 * and returns whole milliseconds. Negative, fractional-millisecond and unreadable values are refused.
 */
export function parseDuration(name: string, value: unknown, maxMs: number): number {
  let millis: number | undefined;
  if (typeof value === 'number') {
    millis = value;
  } else if (typeof value === 'string' && value.trim() !== '') {
    millis = ms(value.trim() as ms.StringValue) as number | undefined;
    if (millis === undefined) {
      throw new ValidationError(
        `Expected \`${name}\` to be a duration like 1500, '30s', '30m' or '2h', got ${describe(value)}`,
      );
    }
  }
  if (
    millis === undefined ||
    !Number.isFinite(millis) ||
    !Number.isInteger(millis) ||
    millis < 0 ||
    millis > maxMs
  ) {
    throw new ValidationError(
      `Expected \`${name}\` to be a whole number of milliseconds from 0 to ${maxMs} or a duration string, got ${describe(value)}`,
    );
  }
  return millis;
}
