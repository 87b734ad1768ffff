/**
 * A consumer in a process of its own (W3): `node --import tsx bench/consumer-process.ts <system>
 * <redis url> <queue> <concurrency> <total>`. Prints "ready", then one JSON line when every job ran.
 */
import { SYSTEMS } from './systems/index.js';
import { Tracker } from './tracker.js';

const [systemName, url, queue, concurrency, total] = process.argv.slice(2);
const system = SYSTEMS[systemName as string];
if (!system) throw new Error(`no system ${systemName}`);
const tracker = new Tracker(Number(total));
const consumer = await system.consumer(url as string, queue as string, Number(concurrency), (data, dueAt) =>
  tracker.record(data.i, dueAt, false),
);
console.log('ready');
await tracker.done;
// Late duplicates would show within a moment; then report.
await new Promise((r) => setTimeout(r, 300));
console.log(JSON.stringify({ lastRunAt: tracker.lastRunAt, ...tracker.check() }));
await consumer.close();
process.exit(0);
