import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import { ValidationError } from '../errors.js';
import type { Client } from './connection.js';

/**
 * The Redis URLs dueq takes (`--redis`, REDIS_URL, a `connection` string):
 *
 *   redis://[user[:password]@]host[:port][/db]            one server
 *   rediss://…                                             the same over TLS
 *   redis+sentinel://[user[:password]@]host:port[,host:port…]/<master name>[/db]
 *   rediss+sentinel://…                                    master and sentinels over TLS
 *   redis+cluster://[user[:password]@]host:port[,host:port…]
 *   rediss+cluster://…                                     every node over TLS
 *
 * User and password are the Redis ACL user (or the `requirepass` password alone); for Sentinel
 * they are the master's, and `?sentinelUsername=…&sentinelPassword=…` authenticate to the
 * sentinels when they need it. A TLS server whose certificate is not signed by a public CA needs
 * its CA in NODE_EXTRA_CA_CERTS, or pass ioredis options with `tls: { ca }` instead of a URL.
 */
export type RedisUrlSpec =
  | { kind: 'single'; url: string }
  | { kind: 'sentinel'; options: RedisOptions }
  | { kind: 'cluster'; nodes: { host: string; port: number }[]; options: RedisOptions };

const DEFAULT_PORT = { redis: 6379, sentinel: 26379 } as const;

export function parseRedisUrl(url: string): RedisUrlSpec {
  const scheme = /^([a-z+]+):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'redis' || scheme === 'rediss') return { kind: 'single', url };
  if (
    scheme !== 'redis+sentinel' &&
    scheme !== 'rediss+sentinel' &&
    scheme !== 'redis+cluster' &&
    scheme !== 'rediss+cluster'
  ) {
    throw new ValidationError(
      `Expected a Redis URL (redis://, rediss://, redis+sentinel://, redis+cluster://), got ${JSON.stringify(redact(url))}`,
    );
  }
  const tls = scheme.startsWith('rediss');
  // Several hosts do not make a valid WHATWG URL host; parse the authority by hand.
  const rest = url.slice(scheme.length + 3);
  const [beforeQuery = '', query = ''] = rest.split('?', 2);
  const slash = beforeQuery.indexOf('/');
  const authority = slash < 0 ? beforeQuery : beforeQuery.slice(0, slash);
  const path = slash < 0 ? '' : beforeQuery.slice(slash + 1);
  const at = authority.lastIndexOf('@');
  const credentials = at < 0 ? '' : authority.slice(0, at);
  const hostList = at < 0 ? authority : authority.slice(at + 1);
  const [user = '', ...passwordParts] = credentials.split(':');
  const password = passwordParts.join(':');
  const auth: RedisOptions = {};
  if (user) auth.username = decodeURIComponent(user);
  if (password) auth.password = decodeURIComponent(password);
  const isSentinel = scheme.endsWith('sentinel');
  const nodes = hostList.split(',').map((hostPort) => parseHostPort(hostPort, isSentinel, url));
  if (nodes.length === 0 || hostList === '') throw new ValidationError(`No host in Redis URL ${redact(url)}`);
  const params = new URLSearchParams(query);

  if (isSentinel) {
    const [name, db] = path.split('/');
    if (!name) {
      throw new ValidationError(
        `A redis+sentinel:// URL names its master after the hosts (…/mymaster), got ${redact(url)}`,
      );
    }
    const options: RedisOptions = {
      ...auth,
      sentinels: nodes,
      name: decodeURIComponent(name),
      ...(db ? { db: parseDb(db, url) } : {}),
    };
    const sentinelUsername = params.get('sentinelUsername');
    const sentinelPassword = params.get('sentinelPassword');
    if (sentinelUsername) options.sentinelUsername = sentinelUsername;
    if (sentinelPassword) options.sentinelPassword = sentinelPassword;
    if (tls) {
      options.tls = {};
      options.sentinelTLS = {};
      options.enableTLSForSentinelMode = true;
    }
    return { kind: 'sentinel', options };
  }
  if (path)
    throw new ValidationError(`A Redis Cluster has no databases: drop "/${path}" from ${redact(url)}`);
  return { kind: 'cluster', nodes, options: { ...auth, ...(tls ? { tls: {} } : {}) } };
}

function parseHostPort(hostPort: string, sentinel: boolean, url: string): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(hostPort);
  if (!match?.[1]) throw new ValidationError(`Cannot read host "${hostPort}" in Redis URL ${redact(url)}`);
  const host = match[1].replace(/^\[|\]$/g, '');
  const port = match[2] ? Number(match[2]) : sentinel ? DEFAULT_PORT.sentinel : DEFAULT_PORT.redis;
  if (port < 1 || port > 65_535) throw new ValidationError(`Bad port in Redis URL ${redact(url)}`);
  return { host, port };
}

function parseDb(db: string, url: string): number {
  const n = Number(db);
  if (!Number.isInteger(n) || n < 0)
    throw new ValidationError(`Bad database "${db}" in Redis URL ${redact(url)}`);
  return n;
}

/** The URL with its password replaced by ***: passwords never reach logs or errors. */
export function redact(url: string): string {
  return url.replace(/(\/\/[^:/@,]*:)[^@]*@/, '$1***@');
}

/**
 * A client for a URL: a Redis for one server or a Sentinel-watched master, a Cluster for a
 * cluster. `overrides` are per-connection options (name, retries) applied to every node.
 */
export function clientFromUrl(url: string, overrides: RedisOptions = {}): Client {
  const spec = parseRedisUrl(url);
  if (spec.kind === 'single') return new Redis(url, overrides);
  if (spec.kind === 'sentinel') return new Redis({ ...spec.options, ...overrides });
  const clusterOptions: ClusterOptions = {
    redisOptions: { ...spec.options, ...overrides },
    // lazyConnect is a Cluster-level setting: ioredis does not take it from redisOptions.
    ...(overrides.lazyConnect ? { lazyConnect: true } : {}),
  };
  return new Cluster(spec.nodes, clusterOptions);
}
