/**
 * Makes docs/dashboard.png for the README: the demo's shop on an embedded Redis for a minute, then
 * the dashboard in headless Chromium. Run with `npx tsx scripts/screenshot.ts`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { EmbeddedRedis } from '../src/cli/embedded-redis.js';
import { startDashboard } from '../src/dashboard/server.js';
import { Shop } from '../src/demo/shop.js';
import { Queue, Scheduler, Worker } from '../src/index.js';

const redis = await EmbeddedRedis.start(mkdtempSync(join(tmpdir(), 'dueq-shot-')));
const queue = new Queue('orders', { connection: redis.url });
const shop = new Shop(queue, { event: () => {}, lateness: () => {} });
const scheduler = new Scheduler(queue);
await scheduler.start();
const worker = new Worker(queue, shop.jobs, { concurrency: 32 });
worker.on('error', () => {});
await worker.waitUntilReady();
await queue.schedule('report.hourly', {
  cron: '0 * * * *',
  tz: 'Asia/Shanghai',
  type: 'stock.release',
  data: { orderId: 0, items: 0 },
});
await queue.schedule('payment.sweep', { every: '5m', type: 'payment.check', data: { orderId: 0 } });
const until = Date.now() + 70_000;
while (Date.now() < until) {
  await shop.placeOrder();
  await new Promise((r) => setTimeout(r, 150));
}
const dashboard = await startDashboard({ redisUrl: redis.url, prefix: 'dueq', port: 0 });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
  ],
});
const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
await page.goto(`${dashboard.url}#/queue/orders`);
await page.click('button[data-tab="delayed"]');
await page.waitForTimeout(6_000);
await page.screenshot({ path: 'docs/dashboard.png' });
await browser.close();
await dashboard.close();
await worker.close({ timeoutMs: 1_000 });
await scheduler.close();
await queue.close();
await redis.stop();
