/**
 * A Worker in a process of its own (run with `node --import tsx`): handles 'echo' (returns its
 * data) and 'boom' (throws). Prints "ready" once started, closes on SIGTERM.
 */
import { Worker } from '../../src/index.js';

const [url, queue] = process.argv.slice(2);
const worker = new Worker(
  queue as string,
  {
    echo: async (job) => job.data,
    boom: async () => {
      throw new Error('boom from another process');
    },
  },
  { connection: url as string },
);
worker.on('error', (error) => console.error(error.message));
await worker.waitUntilReady();
console.log('ready');
process.on('SIGTERM', () => {
  void worker.close().then(() => process.exit(0));
});
