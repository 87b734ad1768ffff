import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { ValidationError } from '../errors.js';
import { clientFromUrl } from '../redis/url.js';
import { DashboardApi, HttpError } from './api.js';

export interface DashboardOptions {
  redisUrl: string;
  prefix: string;
  /** @default 127.0.0.1 */
  host?: string;
  /** @default 7070; 0 picks a free port */
  port?: number;
  /** Required to bind anything but loopback: every API call must then carry it. */
  token?: string | undefined;
}

export interface RunningDashboard {
  url: string;
  close(): Promise<void>;
}

const PUBLIC = new URL('./public/', import.meta.url);
const require = createRequire(import.meta.url);

const ASSETS: Record<string, { file: () => string; type: string }> = {
  '/': { file: () => new URL('index.html', PUBLIC).pathname, type: 'text/html; charset=utf-8' },
  '/assets/app.js': {
    file: () => new URL('app.js', PUBLIC).pathname,
    type: 'text/javascript; charset=utf-8',
  },
  '/assets/app.css': { file: () => new URL('app.css', PUBLIC).pathname, type: 'text/css; charset=utf-8' },
  // The chart library, served from its package: nothing is fetched from the internet.
  '/assets/uplot.js': {
    file: () => require.resolve('uplot/dist/uPlot.iife.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
  '/assets/uplot.css': {
    file: () => require.resolve('uplot/dist/uPlot.min.css'),
    type: 'text/css; charset=utf-8',
  },
};

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
  });
  response.end(JSON.stringify(body));
}

/**
 * `dueq dashboard`: the page and its API. It binds 127.0.0.1 unless told otherwise, and refuses
 * any other address without a token. Actions (POST) also need the `x-dueq` header, which a page
 * on another origin cannot send without a CORS preflight this server never grants.
 */
export async function startDashboard(options: DashboardOptions): Promise<RunningDashboard> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token || undefined;
  if (!LOOPBACK.has(host) && !token) {
    throw new ValidationError(
      `The dashboard binds ${host}, beyond this machine: give it a --token (or DUEQ_DASHBOARD_TOKEN)`,
    );
  }
  const redis = clientFromUrl(options.redisUrl, {
    connectionName: 'dueq:dashboard',
    maxRetriesPerRequest: 2,
  });
  redis.on('error', () => {});
  const api = new DashboardApi(redis, options.prefix);

  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://dashboard');
    const asset = ASSETS[url.pathname];
    if (asset && request.method === 'GET') {
      try {
        response.writeHead(200, { 'content-type': asset.type, 'cache-control': 'no-cache' });
        response.end(readFileSync(asset.file()));
      } catch {
        send(response, 500, { error: `missing asset ${url.pathname}` });
      }
      return;
    }
    if (!url.pathname.startsWith('/api/')) {
      send(response, 404, { error: `Not found: ${url.pathname}` });
      return;
    }
    if (token) {
      const header = request.headers.authorization ?? '';
      if (!sameToken(header.replace(/^Bearer /, ''), token)) {
        send(response, 401, { error: 'A token is required: Authorization: Bearer <token>' });
        return;
      }
    }
    if (request.method === 'POST' && request.headers['x-dueq'] !== '1') {
      send(response, 403, { error: 'Actions need the header x-dueq: 1' });
      return;
    }
    const path = url.pathname.slice('/api/'.length).split('/').filter(Boolean);
    api.handle({ method: request.method ?? 'GET', path, query: url.searchParams }).then(
      (body) => send(response, 200, body),
      (error: unknown) => {
        if (error instanceof HttpError) send(response, error.status, { error: error.message });
        else send(response, 500, { error: error instanceof Error ? error.message : String(error) });
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 7070, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/`,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await api.close();
      redis.disconnect();
    },
  };
}
