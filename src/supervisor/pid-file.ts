import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { DueqError } from '../errors.js';

/** Another live process holds the pid file (seed 000 §5.5: never two supervisors on one queue set). */
export class AlreadyRunningError extends DueqError {
  constructor(
    readonly pid: number,
    readonly pidFile: string,
  ) {
    super(
      'DUEQ_INVALID_STATE',
      `dueq is already running (pid ${pid}, pid file ${pidFile}); stop it with \`dueq stop\``,
    );
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid in the file, if the file exists and names a live process. */
export function readLivePid(pidFile: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(pidFile, 'utf8');
  } catch {
    return undefined;
  }
  const pid = Number.parseInt(text.trim(), 10);
  return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
}

/**
 * Takes the pid file for this process, created exclusively so that two starts racing cannot both
 * win. A file left by a process that is gone is stale and replaced.
 */
export function acquirePidFile(pidFile: string): { release(): void } {
  mkdirSync(dirname(pidFile), { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(pidFile, 'wx');
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return {
        release() {
          if (readLivePid(pidFile) === process.pid) rmSync(pidFile, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readLivePid(pidFile);
      if (holder !== undefined && holder !== process.pid) throw new AlreadyRunningError(holder, pidFile);
      rmSync(pidFile, { force: true });
    }
  }
  throw new DueqError('DUEQ_INVALID_STATE', `Could not take the pid file ${pidFile}`);
}
