/**
 * W6's pinger, in a process of its own so that it measures Redis and not the consumer's event
 * loop: `node --import tsx bench/pinger-process.ts <redis url>`. PINGs every 2 ms, prints "ready"
 * once connected; when its stdin ends it prints the round trips' summary as one JSON line.
 */
import { Redis } from 'ioredis';
import { summary } from './tracker.js';

const client = new Redis(process.argv[2] as string);
const rtts: number[] = [];
let running = true;
process.stdin.on('end', () => {
  running = false;
});
process.stdin.resume();
await client.ping();
console.log('ready');
while (running) {
  const t = performance.now();
  await client.ping();
  rtts.push(performance.now() - t);
  await new Promise((r) => setTimeout(r, 2));
}
console.log(JSON.stringify(summary(rtts)));
client.disconnect();
