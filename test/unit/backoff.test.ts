import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF_SPEC, decodeBackoff, encodeBackoff } from '../../src/queue/backoff.js';

describe('backoff options', () => {
  it('defaults to exponential from 1 s, capped at 1 h', () => {
    expect(encodeBackoff(undefined)).toBe('e:1000:3600000:0');
    expect(DEFAULT_BACKOFF_SPEC).toBe('e:1000:3600000:0');
  });

  it('encodes each kind, reading duration strings', () => {
    expect(encodeBackoff({ type: 'fixed', delay: '5s' })).toBe('f:5000:0');
    expect(encodeBackoff({ type: 'fixed', delay: 100, jitter: 0.5 })).toBe('f:100:0.5');
    expect(encodeBackoff({ type: 'exponential', delay: 200, max: '1m', jitter: 1 })).toBe('e:200:60000:1');
    expect(encodeBackoff([0, '5s', '30s', 120_000])).toBe('t:0,5000,30000,120000');
  });

  it('round-trips through decode', () => {
    expect(decodeBackoff('f:5000:0.25')).toEqual({ type: 'fixed', delay: 5000, jitter: 0.25 });
    expect(decodeBackoff('e:200:60000:1')).toEqual({
      type: 'exponential',
      delay: 200,
      max: 60000,
      jitter: 1,
    });
    expect(decodeBackoff('t:0,5000')).toEqual([0, 5000]);
  });

  it.each([
    [{ type: 'linear', delay: 1 }, /`backoff.type` to be 'fixed' or 'exponential'/],
    [{ type: 'fixed' }, /`backoff.delay`/],
    [{ type: 'fixed', delay: -1 }, /`backoff.delay`/],
    [{ type: 'fixed', delay: 1, jitter: 2 }, /`backoff.jitter` to be a number from 0 to 1/],
    [
      { type: 'exponential', delay: 1000, max: 10 },
      /`backoff.max` \(10 ms\) to be at least `backoff.delay` \(1000 ms\)/,
    ],
    [{ type: 'fixed', delay: 1, max: 5 }, /Unknown option `max`/],
    [[], /1 to 100 delays/],
    [['soon'], /`backoff\[0\]`/],
    ['1s', /`backoff` to be an object/],
  ])('refuses %j', (value, message) => {
    expect(() => encodeBackoff(value)).toThrow(message);
  });
});
