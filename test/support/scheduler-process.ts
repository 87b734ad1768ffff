/**
 * A Scheduler in a process of its own (run with `node --import tsx`), for tests of many
 * schedulers at once: prints "ready" once started, closes on SIGTERM.
 */
import { Scheduler } from '../../src/index.js';

const [url, queue] = process.argv.slice(2);
const scheduler = new Scheduler(queue as string, { connection: url as string });
scheduler.on('error', (error) => console.error(error.message));
await scheduler.start();
console.log('ready');
process.on('SIGTERM', () => {
  void scheduler.close().then(() => process.exit(0));
});
