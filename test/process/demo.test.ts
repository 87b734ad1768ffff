import { describe, expect, it } from 'vitest';
import { dueq, tempDir } from '../support/cli.js';

describe('dueq demo', () => {
  it('tells the order-timeout story on an embedded Redis and ends with a consistent summary', async () => {
    const result = await dueq(['demo', '--duration', '2s', '--orders-per-second', '8'], {
      cwd: tempDir(),
      timeoutMs: 60_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/started an embedded redis-server on redis:\/\/127\.0\.0\.1:\d+/);
    const out = result.stdout;
    expect(out).toMatch(/order \d+ placed: \d items? held, closes in \d+\.\d s unless paid/);
    const summary =
      /(\d+) orders: (\d+) paid \(their close jobs cancelled\), (\d+) closed unpaid, (\d+) still open/.exec(
        out,
      );
    expect(summary).not.toBeNull();
    const [placed, paid, closed, open] = (summary as RegExpExecArray).slice(1).map(Number) as [
      number,
      number,
      number,
      number,
    ];
    expect(placed).toBeGreaterThanOrEqual(8);
    expect(paid + closed + open).toBe(placed);
    expect(open).toBe(0);
    expect(out).toMatch(
      /order\.close lateness \(start − due\): p50 \d+\.\d ms, p99 \d+\.\d ms, max \d+\.\d ms/,
    );
    const deadCount = Number(/(\d+) in the dead-letter queue/.exec(out)?.[1]);
    expect(out.split('\n').filter((l) => l.startsWith('  dead: '))).toHaveLength(deadCount);
  });
});
