import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { parseDuration } from '../../src/util/duration.js';

describe('parseDuration', () => {
  it('reads milliseconds and duration strings', () => {
    expect(parseDuration('delay', 1500, 1e12)).toBe(1500);
    expect(parseDuration('delay', '30m', 1e12)).toBe(30 * 60_000);
    expect(parseDuration('delay', '2 hours', 1e12)).toBe(7_200_000);
    expect(parseDuration('delay', '1.5s', 1e12)).toBe(1500);
    expect(parseDuration('delay', ' 10s ', 1e12)).toBe(10_000);
    expect(parseDuration('delay', 0, 1e12)).toBe(0);
  });

  it.each([
    ['a negative number', -1],
    ['a fraction of a millisecond', 1.5],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['an unreadable string', '30 parsecs'],
    ['an empty string', ''],
    ['a negative string', '-5m'],
    ['null', null],
    ['an object', { ms: 5 }],
  ])('refuses %s with a one-line error naming the option', (_label, value) => {
    expect(() => parseDuration('delay', value, 1e12)).toThrow(ValidationError);
    try {
      parseDuration('delay', value, 1e12);
    } catch (error) {
      expect((error as Error).message).toMatch(/`delay`/);
      expect((error as Error).message).not.toMatch(/\n/);
    }
  });

  it('refuses values over the maximum', () => {
    expect(() => parseDuration('timeout', '2d', 86_400_000)).toThrow(/from 0 to 86400000/);
  });
});
