import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

const root = new URL('../../', import.meta.url).pathname;
export const CLI = join(root, 'dist/cli/index.js');
export const FIXTURES = join(root, 'test/fixtures');

export function tempDir(label = 'dueq-cli-'): string {
  return mkdtempSync(join(tmpdir(), label));
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `dueq …` to its end. */
export async function dueq(
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<RunResult> {
  if (!existsSync(CLI)) throw new Error('dist/ is not built: run `npm run build` (npm test builds it first)');
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      timeout: options.timeoutMs ?? 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

export interface LogLine {
  msg: string;
  component: string;
  pid: number;
  level: number;
  [field: string]: unknown;
}

/** A `dueq start` running in the background, its JSON log lines collected as they come. */
export class RunningSupervisor {
  readonly lines: LogLine[] = [];
  readonly output: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly child: ChildProcess;
  private waiters: { test: (l: LogLine) => boolean; resolve: (l: LogLine) => void }[] = [];

  constructor(
    args: string[],
    readonly cwd: string,
    env: NodeJS.ProcessEnv = {},
  ) {
    this.child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { ...process.env, DUEQ_LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const read = (stream: NodeJS.ReadableStream | null) => {
      if (!stream) return;
      createInterface({ input: stream }).on('line', (text) => {
        this.output.push(text);
        let line: LogLine;
        try {
          line = JSON.parse(text) as LogLine;
        } catch {
          return;
        }
        this.lines.push(line);
        this.waiters = this.waiters.filter((w) => {
          if (!w.test(line)) return true;
          w.resolve(line);
          return false;
        });
      });
    };
    read(this.child.stdout);
    read(this.child.stderr);
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => resolve({ code, signal })),
    );
  }

  get pid(): number {
    return this.child.pid as number;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The first log line (already seen or still to come) that passes `test`. */
  waitFor(test: (line: LogLine) => boolean, timeoutMs = 15_000, what = 'a log line'): Promise<LogLine> {
    const seen = this.lines.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(new Error(`timed out waiting for ${what}; output:\n${this.output.slice(-30).join('\n')}`)),
        timeoutMs,
      );
      this.waiters.push({
        test,
        resolve: (l) => {
          clearTimeout(timer);
          resolve(l);
        },
      });
    });
  }

  waitForMessage(pattern: RegExp, timeoutMs?: number): Promise<LogLine> {
    return this.waitFor((l) => pattern.test(l.msg), timeoutMs, `a log line matching ${pattern}`);
  }

  started(): Promise<LogLine> {
    return this.waitForMessage(/^dueq started/, 20_000);
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Ends it whatever its state (test clean-up). */
  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
      await this.exited;
      clearTimeout(timer);
    }
  }
}

/** The lines a fixture job appended to its log file. */
export function readRecords(
  file: string,
): { phase: string; id: string; n?: number; attempt: number; pid: number; at: number }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}
