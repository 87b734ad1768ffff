import type { TestProject } from 'vitest/node';
import { RedisServer } from './redis-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

let server: RedisServer | undefined;

/** One redis-server for the whole run; each test uses queues of its own on it. */
export async function setup(project: TestProject): Promise<void> {
  server = await RedisServer.start();
  project.provide('redisUrl', server.url);
}

export async function teardown(): Promise<void> {
  await server?.stop();
}
