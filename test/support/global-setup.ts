import type { TestProject } from 'vitest/node';
import { RedisClusterSetup } from './redis-cluster.js';
import { RedisServer } from './redis-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

let stop: (() => Promise<void>) | undefined;

/**
 * One Redis for the whole run; each test uses queues of its own on it. DUEQ_TEST_REDIS=cluster
 * makes it a 3-master Redis Cluster instead of one redis-server (npm run test:cluster).
 */
export async function setup(project: TestProject): Promise<void> {
  if (process.env.DUEQ_TEST_REDIS === 'cluster') {
    const cluster = await RedisClusterSetup.start();
    stop = () => cluster.stop();
    project.provide('redisUrl', cluster.url);
    return;
  }
  const server = await RedisServer.start();
  stop = () => server.stop();
  project.provide('redisUrl', server.url);
}

export async function teardown(): Promise<void> {
  await stop?.();
}
