import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { parseRedisUrl, redact } from '../../src/redis/url.js';

describe('Redis URLs', () => {
  it('hands redis:// and rediss:// to ioredis as they are', () => {
    expect(parseRedisUrl('redis://u:p@10.0.0.1:6380/2')).toEqual({
      kind: 'single',
      url: 'redis://u:p@10.0.0.1:6380/2',
    });
    expect(parseRedisUrl('rediss://cache.example:6380')).toEqual({
      kind: 'single',
      url: 'rediss://cache.example:6380',
    });
  });

  it('reads a Sentinel URL: sentinels, master name, database, both sets of credentials, TLS', () => {
    expect(
      parseRedisUrl(
        'redis+sentinel://app:s%40cret@10.0.0.1:26379,10.0.0.2,[::1]:26380/mymaster/3?sentinelPassword=sp',
      ),
    ).toEqual({
      kind: 'sentinel',
      options: {
        username: 'app',
        password: 's@cret',
        sentinels: [
          { host: '10.0.0.1', port: 26379 },
          { host: '10.0.0.2', port: 26379 },
          { host: '::1', port: 26380 },
        ],
        name: 'mymaster',
        db: 3,
        sentinelPassword: 'sp',
      },
    });
    const tls = parseRedisUrl('rediss+sentinel://h:26379/m');
    expect(tls).toMatchObject({
      kind: 'sentinel',
      options: { tls: {}, sentinelTLS: {}, enableTLSForSentinelMode: true },
    });
  });

  it('reads a Cluster URL: seed nodes, credentials, TLS', () => {
    expect(parseRedisUrl('redis+cluster://:pw@127.0.0.1:7000,127.0.0.1:7001')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '127.0.0.1', port: 7000 },
        { host: '127.0.0.1', port: 7001 },
      ],
      options: { password: 'pw' },
    });
    expect(parseRedisUrl('rediss+cluster://n1:7000')).toMatchObject({ options: { tls: {} } });
  });

  it.each([
    ['http://x', /Expected a Redis URL/],
    ['redis+sentinel://h:26379', /names its master/],
    ['redis+cluster://h:7000/1', /no databases/],
    ['redis+cluster://h:99999', /Bad port/],
    ['redis+sentinel://:hunter2@h/m/x', /Bad database/],
  ])('refuses %s in one line, without its password', (url, message) => {
    expect(() => parseRedisUrl(url)).toThrow(ValidationError);
    expect(() => parseRedisUrl(url)).toThrow(message);
    try {
      parseRedisUrl(url);
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
    }
  });

  it('redacts passwords', () => {
    expect(redact('redis://user:hunter2@h:6379')).toBe('redis://user:***@h:6379');
    expect(redact('redis+sentinel://:hunter2@a:1,b:2/m')).toBe('redis+sentinel://:***@a:1,b:2/m');
  });
});
