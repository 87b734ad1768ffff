import { rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';

/**
 * The supervisor's control channel: a Unix socket next to its pid file. `dueq status` and
 * `dueq reload --workers N` send one JSON line and read one back; signals (SIGTERM, SIGHUP) do the
 * rest, so the supervisor can be driven without it too.
 */
export type ControlRequest = { cmd: 'status' } | { cmd: 'reload'; workers?: number };

export type ControlReply = { ok: true; result: unknown } | { ok: false; error: string };

export function controlSocketPath(pidFile: string): string {
  return `${pidFile.replace(/\.pid$/, '')}.sock`;
}

export async function startControlServer(
  path: string,
  handle: (request: ControlRequest) => Promise<unknown>,
): Promise<{ close(): Promise<void> }> {
  // Only the process holding the pid file gets here, so a socket file left behind is stale.
  rmSync(path, { force: true });
  const server = createServer((socket) => {
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const end = buffer.indexOf('\n');
      if (end < 0) return;
      const line = buffer.slice(0, end);
      buffer = '';
      const reply = (r: ControlReply) => socket.end(`${JSON.stringify(r)}\n`);
      let request: ControlRequest;
      try {
        request = JSON.parse(line) as ControlRequest;
      } catch {
        reply({ ok: false, error: 'not a JSON request' });
        return;
      }
      handle(request).then(
        (result) => reply({ ok: true, result }),
        (error: unknown) =>
          reply({ ok: false, error: error instanceof Error ? error.message : String(error) }),
      );
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        rmSync(path, { force: true });
      }),
  };
}

export function sendControl(path: string, request: ControlRequest, timeoutMs = 5_000): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    let buffer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer on ${path} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk: string) => {
      buffer += chunk;
    });
    socket.on('end', () => {
      clearTimeout(timer);
      try {
        const reply = JSON.parse(buffer) as ControlReply;
        if (reply.ok) resolve(reply.result);
        else reject(new Error(reply.error));
      } catch {
        reject(new Error(`unreadable answer on ${path}`));
      }
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
