import { describe, expect, it } from 'vitest';
import { RedisClock } from '../../src/worker/redis-clock.js';

describe('RedisClock', () => {
  it('estimates Redis time from the middle of a round trip', () => {
    const clock = new RedisClock();
    const sent = performance.now();
    const received = sent + 2;
    // Redis says 10 s after the epoch-based local guess: the offset follows Redis.
    const redisUs = (Date.now() + 10_000) * 1000;
    clock.sample(redisUs, sent, received);
    expect(clock.synced).toBe(true);
    expect(Math.abs(clock.now() - (Date.now() + 10_000))).toBeLessThan(5);
  });

  it('keeps a short-round-trip sample over a much slower one', () => {
    const clock = new RedisClock();
    const t = performance.now();
    clock.sample(1_000_000_000, t, t + 1);
    const before = clock.now() - performance.now();
    // A 500 ms round trip whose middle would shift the estimate by 250 ms is not trusted.
    clock.sample(1_000_000_000, t, t + 500);
    expect(Math.abs(clock.now() - performance.now() - before)).toBeLessThan(1);
  });

  it('is not moved by a faked Date.now', () => {
    const clock = new RedisClock();
    const t = performance.now();
    clock.sample(5_000_000_000, t, t);
    const realNow = Date.now;
    Date.now = () => realNow() + 120_000;
    try {
      expect(Math.abs(clock.now() - 5_000_000 - (performance.now() - t))).toBeLessThan(1);
    } finally {
      Date.now = realNow;
    }
  });
});
