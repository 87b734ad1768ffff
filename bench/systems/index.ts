import { beeQueue } from './bee-queue.js';
import { bullmq } from './bullmq.js';
import { dueq } from './dueq.js';
import type { System } from './types.js';

export const SYSTEMS: Record<string, System> = { dueq, bullmq, 'bee-queue': beeQueue };
