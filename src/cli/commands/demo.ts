import type { Context } from '../context.js';

export async function demoCommand(
  _ctx: Context,
  _options: { duration: string; ordersPerSecond: string },
): Promise<void> {}
