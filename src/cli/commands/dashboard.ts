import { startDashboard } from '../../dashboard/server.js';
import { type Context, redactUrl } from '../context.js';
import { redisProblem } from '../embedded-redis.js';
import { CliError, EXIT } from '../output.js';
import { intOption } from '../parse.js';
import { resolveRedis } from '../redis-target.js';

/** `dueq dashboard`: serves the web page until Ctrl-C. */
export async function dashboardCommand(
  ctx: Context,
  options: { port: string; host: string; token?: string },
): Promise<void> {
  const port = intOption('--port', options.port, 0, 65_535);
  const token = options.token ?? process.env.DUEQ_DASHBOARD_TOKEN;
  const redis = await resolveRedis({
    redis: ctx.redisOption,
    dataDir: ctx.dataDir,
    allowEmbedded: true,
    note: (t) => ctx.out.note(t),
  });
  const problem = await redisProblem(redis.url, 3_000);
  if (problem) {
    await redis.close();
    throw new CliError(`cannot reach Redis at ${redactUrl(redis.url)}: ${problem}`, EXIT.failure);
  }
  let dashboard: Awaited<ReturnType<typeof startDashboard>>;
  try {
    dashboard = await startDashboard({
      redisUrl: redis.url,
      prefix: ctx.prefix,
      host: options.host,
      port,
      token,
    });
  } catch (error) {
    await redis.close();
    throw error;
  }
  ctx.out.result(
    { url: dashboard.url, redis: redactUrl(redis.url) },
    () =>
      `dueq dashboard on ${dashboard.url}${token ? ' (token required)' : ''} for Redis ${redactUrl(redis.url)}; Ctrl-C stops it`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await dashboard.close();
  await redis.close();
}
