import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard } from '../../src/dashboard/server.js';
import { ValidationError } from '../../src/index.js';
import { launchBrowser } from '../support/browser.js';
import { deferred, redisUrl, useQueues } from '../support/harness.js';

describe('dueq dashboard in Chromium', () => {
  const t = useQueues();
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('loads, follows the counts as jobs flow, and replays a dead job by clicking', async () => {
    const queue = t.queue();
    let failing = true;
    const ran: number[] = [];
    t.worker(queue, {
      charge: async (job) => {
        if (failing) throw new Error(`card declined for order ${job.data}`);
        ran.push(job.data as number);
      },
      tick: async () => {},
    });
    const dashboard = await startDashboard({ redisUrl: redisUrl(), prefix: 'dueq', port: 0 });
    t.onClose(() => dashboard.close());
    const page = await browser.newPage();
    t.onClose(() => page.close());
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));

    await queue.add('tick');
    await page.goto(`${dashboard.url}#/queue/${queue.name}`);
    await expect.poll(() => page.textContent('[data-testid="queue-name"]')).toBe(queue.name);
    await expect.poll(() => page.isVisible(`[data-testid="queue-${queue.name}"]`)).toBe(true);
    const count = async (state: string) =>
      Number((await page.textContent(`[data-testid="count-${state}"] .value`))?.replace(/,/g, ''));
    await expect.poll(() => count('done'), { timeout: 5_000 }).toBe(1);

    // Counts change as jobs flow.
    await queue.addBulk(Array.from({ length: 5 }, () => ({ type: 'tick', opts: { delay: 2_500 } })));
    await expect.poll(() => count('delayed'), { timeout: 5_000 }).toBe(5);
    await expect.poll(() => count('done'), { timeout: 8_000 }).toBe(6);
    expect(await count('delayed')).toBe(0);

    // A dead job, replayed from the Dead tab once the cause is fixed, then runs.
    const id = await queue.add('charge', 1001, { maxAttempts: 1 });
    await expect.poll(() => count('dead'), { timeout: 5_000 }).toBe(1);
    await page.click('button[data-tab="dead"]');
    const row = page.locator(`[data-testid="job-${id}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('card declined for order 1001');
    await row.click();
    await expect.poll(() => page.textContent('[data-testid="job-state"]')).toBe('dead');
    expect(await page.textContent('[data-testid="drawer"]')).toContain('Error: card declined for order 1001');
    await page.click('#drawer-close');
    await expect.poll(() => page.isHidden('[data-testid="drawer"]')).toBe(true);
    failing = false;
    await row.locator('[data-testid="replay"]').click();
    await expect.poll(() => ran, { timeout: 5_000 }).toEqual([1001]);
    await expect.poll(() => count('dead')).toBe(0);
    await expect.poll(() => count('done')).toBe(7);
    expect(pageErrors).toEqual([]);
  });

  it('pauses and resumes the queue from the page', async () => {
    const queue = t.queue();
    await queue.add('x', null, { delay: '1h' });
    const dashboard = await startDashboard({ redisUrl: redisUrl(), prefix: 'dueq', port: 0 });
    t.onClose(() => dashboard.close());
    const page = await browser.newPage();
    t.onClose(() => page.close());
    await page.goto(`${dashboard.url}#/queue/${queue.name}`);
    await page.locator('[data-testid="pause"]').getByText('Pause').waitFor();
    await page.click('[data-testid="pause"]');
    await expect.poll(async () => (await queue.counts()).paused).toBe(true);
    await page.locator('[data-testid="pause"]').getByText('Resume').waitFor();
    await page.click('[data-testid="pause"]');
    await expect.poll(async () => (await queue.counts()).paused).toBe(false);
    await queue.cancel((await queue.jobs('delayed'))[0]?.id as string);
  });
});

describe('dashboard API', () => {
  const t = useQueues();

  async function call(url: string, init: RequestInit = {}) {
    const response = await fetch(url, init);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('answers bad ids and parameters with 400 and a message', async () => {
    const queue = t.queue();
    const gate = deferred();
    const started = deferred();
    t.worker(queue, {
      hold: async () => {
        started.resolve();
        await gate.promise;
      },
    });
    const dashboard = await startDashboard({ redisUrl: redisUrl(), prefix: 'dueq', port: 0 });
    t.onClose(() => dashboard.close());
    const api = `${dashboard.url}api/queues/${queue.name}`;
    const post = { method: 'POST', headers: { 'x-dueq': '1' } };
    expect(await call(`${dashboard.url}api/queues/bad%20name`)).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/^Expected queue name/) },
    });
    expect(await call(`${api}/jobs?state=waiting`)).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/^Expected a job state/) },
    });
    expect(await call(`${api}/jobs?state=ready&limit=0`)).toMatchObject({
      status: 400,
      body: { error: 'Expected limit to be a whole number from 1 to 500, got "0"' },
    });
    expect(await call(`${api}/jobs?offset=-1`)).toMatchObject({ status: 400 });
    expect(await call(`${api}/series?range=7d`)).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/range to be one of 15m, 1h, 3h/) },
    });
    expect(await call(`${api}/jobs/%0A`)).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/job id/) },
    });
    expect(await call(`${api}/jobs/nope`)).toMatchObject({
      status: 404,
      body: { error: `No job "nope" in queue "${queue.name}"` },
    });
    expect(await call(`${api}/jobs/nope/run-now`, post)).toMatchObject({ status: 404 });
    expect(await call(`${api}/jobs/nope/cancel`, post)).toMatchObject({ status: 404 });
    expect(await call(`${api}/dead/replay?limit=abc`, post)).toMatchObject({ status: 400 });
    expect(await call(`${dashboard.url}api/lookup?id=`)).toMatchObject({ status: 400 });
    expect(await call(`${dashboard.url}api/nowhere`)).toMatchObject({ status: 404 });
    const id = await queue.add('hold');
    await started.promise;
    expect(await call(`${api}/jobs/${id}/run-now`, post)).toMatchObject({
      status: 409,
      body: { error: `Job "${id}" is active; only delayed or dead jobs can be run now` },
    });
    expect(await call(`${api}/jobs/${id}/remove`, post)).toMatchObject({ status: 409 });
    // Actions need the x-dueq header, which another origin's page cannot send.
    expect(await call(`${api}/pause`, { method: 'POST' })).toMatchObject({ status: 403 });
    expect((await queue.counts()).paused).toBe(false);
    expect(await call(`${dashboard.url}api/lookup?id=${id}`)).toMatchObject({
      status: 200,
      body: { queue: queue.name, job: { id, state: 'active' } },
    });
    gate.resolve();
  });

  it('with a token set, no call works without it', async () => {
    const queue = t.queue();
    const id = await queue.add('x', null, { delay: '1h' });
    const dashboard = await startDashboard({
      redisUrl: redisUrl(),
      prefix: 'dueq',
      port: 0,
      token: 's3cret-token',
    });
    t.onClose(() => dashboard.close());
    const api = `${dashboard.url}api/queues/${queue.name}`;
    const good = { authorization: 'Bearer s3cret-token', 'x-dueq': '1' };
    for (const [path, method] of [
      ['', 'GET'],
      ['/jobs?state=delayed', 'GET'],
      [`/jobs/${id}/run-now`, 'POST'],
      [`/jobs/${id}/cancel`, 'POST'],
      ['/pause', 'POST'],
      ['/dead/replay', 'POST'],
    ] as const) {
      expect((await call(`${api}${path}`, { method, headers: { 'x-dueq': '1' } })).status).toBe(401);
      expect(
        (await call(`${api}${path}`, { method, headers: { ...good, authorization: 'Bearer wrong' } })).status,
      ).toBe(401);
    }
    expect(await queue.getJob(id)).toMatchObject({ state: 'delayed' });
    expect((await queue.counts()).paused).toBe(false);
    expect(await call(`${api}/jobs/${id}/run-now`, { method: 'POST', headers: good })).toMatchObject({
      status: 200,
    });
    expect((await queue.getJob(id))?.state).toBe('ready');
    await queue.cancel(id);
    // The page itself loads without the token; its API calls carry it.
    expect((await fetch(dashboard.url)).status).toBe(200);
  });

  it('refuses to bind beyond loopback without a token', async () => {
    await expect(
      startDashboard({ redisUrl: redisUrl(), prefix: 'dueq', host: '0.0.0.0', port: 0 }),
    ).rejects.toThrow(ValidationError);
    await expect(
      startDashboard({ redisUrl: redisUrl(), prefix: 'dueq', host: '0.0.0.0', port: 0 }),
    ).rejects.toThrow(
      'The dashboard binds 0.0.0.0, beyond this machine: give it a --token (or DUEQ_DASHBOARD_TOKEN)',
    );
    const open = await startDashboard({
      redisUrl: redisUrl(),
      prefix: 'dueq',
      host: '0.0.0.0',
      port: 0,
      token: 't',
    });
    await open.close();
  });
});
