import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** Starts `node --import tsx <script> ...args` and resolves once it prints "ready". */
export function tsxProcess(script: URL, args: string[]): Promise<{ stop(): Promise<void>; pid: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script.pathname, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      if (line === 'ready') {
        resolve({
          pid: child.pid as number,
          stop: async () => {
            child.kill('SIGTERM');
            await exited;
          },
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`${script.pathname} exited with ${code}`)));
  });
}
