import { pino } from 'pino';
import pretty from 'pino-pretty';

export type Logger = pino.Logger;

export interface LoggerOptions {
  /** Shown on every line, e.g. 'supervisor' or 'worker'. */
  component: string;
  /** @default process.env.DUEQ_LOG_LEVEL or 'info' */
  level?: string;
  /** Readable lines for a terminal; JSON lines otherwise. @default process.stdout.isTTY */
  pretty?: boolean;
  /** Extra fields on every line. */
  bindings?: Record<string, unknown>;
}

/**
 * dueq's logs: readable in a terminal, one JSON object per line when piped (for log shippers and
 * for the tests, which read them). Writes are synchronous so nothing is lost when a process exits.
 */
export function createLogger(options: LoggerOptions): Logger {
  const level = options.level ?? process.env.DUEQ_LOG_LEVEL ?? 'info';
  const base = { component: options.component, pid: process.pid, ...options.bindings };
  if (options.pretty ?? process.stdout.isTTY === true) {
    const stream = pretty({ colorize: true, sync: true, ignore: 'hostname', translateTime: 'HH:MM:ss.l' });
    return pino({ level, base }, stream);
  }
  return pino({ level, base, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ sync: true }));
}
