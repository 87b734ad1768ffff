import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { benchCommand } from './commands/bench.js';
import { dashboardCommand } from './commands/dashboard.js';
import { deadListCommand, deadPurgeCommand, deadRemoveCommand, deadReplayCommand } from './commands/dead.js';
import { demoCommand } from './commands/demo.js';
import { doctorCommand } from './commands/doctor.js';
import { addCommand, cancelCommand, runNowCommand, showCommand } from './commands/jobs.js';
import { scheduleListCommand, scheduleRemoveCommand, scheduleSetCommand } from './commands/schedule.js';
import { START_DEFAULTS, startCommand } from './commands/start.js';
import { statsCommand } from './commands/stats.js';
import { reloadCommand, statusCommand, stopCommand } from './commands/supervisor.js';
import type { Context, GlobalOptions } from './context.js';
import { CliError, EXIT } from './output.js';

const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/**
 * The `dueq` command line. Flags become the same options objects the library takes, checked by
 * the same code, so a bad flag reads like a bad option: one line, and exit code 2.
 */
export function buildProgram(
  /** Runs a command; a command that resolves with a number asks for that exit code. */
  run: (fn: (ctx: Context) => Promise<unknown>, options: GlobalOptions) => Promise<void>,
): Command {
  const program = new Command('dueq')
    .description(
      'A Redis-backed delayed-job queue: every job on time, whatever the clocks; never lost, whatever dies.',
    )
    .version(version, '-V, --version')
    .option(
      '--redis <url>',
      'Redis URL (default: $REDIS_URL, else 127.0.0.1:6379, else an embedded redis-server)',
    )
    .option('--prefix <prefix>', 'key prefix', 'dueq')
    .option(
      '--data-dir <dir>',
      'where dueq keeps its pid file, control socket and embedded Redis data',
      '.dueq',
    )
    .option('--json', 'print results as JSON, for scripts')
    .option('--verbose', 'print the stack with errors')
    .showSuggestionAfterError()
    .exitOverride();

  const globals = (cmd: Command) => cmd.optsWithGlobals<GlobalOptions>();

  program
    .command('start')
    .description('run the supervisor in the foreground: worker processes, the scheduler, restarts')
    .requiredOption('--jobs <dir>', 'directory with one job file per type (.js, .mjs, .ts)')
    .option(
      '--queue <name>',
      'queue to serve (repeat for several; default: default)',
      (v: string, all: string[]) => [...all, v],
      [],
    )
    .option('--shards <n>', 'each queue is sharded into n shards (the Queue option shards: n)')
    .option('--workers <n>', 'worker processes', START_DEFAULTS.workers)
    .option('--concurrency <n>', 'jobs each worker process runs at once (default 16)')
    .option(
      '--grace <duration>',
      'on stop, how long running jobs get to finish before their process is killed',
      START_DEFAULTS.grace,
    )
    .option('--lease <duration>', 'job lease; a job whose worker died runs again after it (default 30s)')
    .option('--max-memory-mb <mb>', 'replace a worker process, once drained, when it grows past this')
    .option(
      '--stuck-after <duration>',
      'replace a worker process whose job runs this long past its timeout',
      START_DEFAULTS.stuckAfter,
    )
    .option('--pid-file <path>', 'pid file (default: <data-dir>/dueq.pid)')
    .option('--metrics-port <port>', 'serve Prometheus metrics on this port (GET /metrics)')
    .option('--metrics-host <host>', 'address the metrics server binds', '127.0.0.1')
    .action(async (options, cmd: Command) => run((ctx) => startCommand(ctx, options), globals(cmd)));

  program
    .command('stop')
    .description('stop the running supervisor gracefully and wait for it')
    .option('--pid-file <path>', 'pid file (default: <data-dir>/dueq.pid)')
    .option('--timeout <duration>', 'give up waiting after this long', '120s')
    .action(async (options, cmd: Command) => run((ctx) => stopCommand(ctx, options), globals(cmd)));

  program
    .command('reload')
    .description('roll worker processes onto fresh job code, optionally resizing the pool')
    .option('--workers <n>', 'new number of worker processes')
    .option('--pid-file <path>', 'pid file (default: <data-dir>/dueq.pid)')
    .action(async (options, cmd: Command) => run((ctx) => reloadCommand(ctx, options), globals(cmd)));

  program
    .command('status')
    .description('show the running supervisor and its worker processes')
    .option('--pid-file <path>', 'pid file (default: <data-dir>/dueq.pid)')
    .action(async (options, cmd: Command) => run((ctx) => statusCommand(ctx, options), globals(cmd)));

  program
    .command('add <queue> <type> [json]')
    .description('add a job; json is its data')
    .addOption(new Option('--delay <duration>', 'run after this long (30m, 2h, 1500)').conflicts('at'))
    .option('--at <iso>', 'run at this instant (2026-12-01T02:00:00Z)')
    .option('--key <key>', 'dedup key: while a job with it waits or runs, no second one is added')
    .option('--id <id>', 'your own job id')
    .option('--priority <n>', 'higher runs first (0 to 1000000)')
    .option('--max-attempts <n>', 'attempts before the dead-letter queue')
    .option('--timeout <duration>', 'per-attempt time limit')
    .action(async (queue: string, type: string, json: string | undefined, options, cmd: Command) =>
      run((ctx) => addCommand(ctx, queue, type, json, options), globals(cmd)),
    );

  program
    .command('show <queue> <id>')
    .description('show a job: state, data, attempts, errors')
    .action(async (queue: string, id: string, _o, cmd: Command) =>
      run((ctx) => showCommand(ctx, queue, id), globals(cmd)),
    );

  program
    .command('cancel <queue> <id>')
    .description('remove a waiting job, or signal the running one to stop')
    .action(async (queue: string, id: string, _o, cmd: Command) =>
      run((ctx) => cancelCommand(ctx, queue, id), globals(cmd)),
    );

  program
    .command('run-now <queue> <id>')
    .description('run a delayed job now, or replay a dead one')
    .action(async (queue: string, id: string, _o, cmd: Command) =>
      run((ctx) => runNowCommand(ctx, queue, id), globals(cmd)),
    );

  program
    .command('dead <action> <queue> [id]')
    .description('the dead-letter queue: list | replay | remove <id> | purge --yes')
    .option('--limit <n>', 'jobs to list or replay', '10')
    .option('--offset <n>', 'jobs to skip when listing', '0')
    .option('--yes', 'confirm purge')
    .action(async (action: string, queue: string, id: string | undefined, options, cmd: Command) =>
      run((ctx) => {
        switch (action) {
          case 'list':
            return deadListCommand(ctx, queue, options);
          case 'replay':
            return deadReplayCommand(ctx, queue, options);
          case 'remove':
            return deadRemoveCommand(ctx, queue, id);
          case 'purge':
            return deadPurgeCommand(ctx, queue, options);
          default:
            throw new Error(`unknown dead action "${action}": use list, replay, remove or purge`);
        }
      }, globals(cmd)),
    );

  program
    .command('schedule <action> <queue> [name]')
    .description('schedules: list | set <name> (--cron … [--tz …] | --every …) --type … | remove <name>')
    .addOption(new Option('--cron <pattern>', "cron pattern, e.g. '0 2 * * *'").conflicts('every'))
    .option('--every <duration>', 'interval, e.g. 5m')
    .option('--tz <zone>', 'time zone of the cron pattern, e.g. Asia/Shanghai')
    .option('--type <type>', 'job type of each occurrence')
    .option('--data <json>', 'job data of each occurrence')
    .option('--overlap <mode>', 'skip (default) or allow')
    .option('--catch-up <policy>', 'fire times missed while no scheduler ran: none, one (default) or all')
    .option('--limit <n>', 'at most this many occurrences')
    .option('--start-at <iso>', 'no occurrence before')
    .option('--end-at <iso>', 'no occurrence after')
    .option('--priority <n>', 'priority of each occurrence')
    .option('--max-attempts <n>', 'attempts of each occurrence')
    .option('--timeout <duration>', 'per-attempt limit of each occurrence')
    .action(async (action: string, queue: string, name: string | undefined, options, cmd: Command) =>
      run((ctx) => {
        if (action === 'list') return scheduleListCommand(ctx, queue);
        if (!name) throw new CliError(`schedule ${action} needs a schedule name`, EXIT.usage);
        if (action === 'set') return scheduleSetCommand(ctx, queue, name, options);
        if (action === 'remove') return scheduleRemoveCommand(ctx, queue, name);
        throw new CliError(`unknown schedule action "${action}": use list, set or remove`, EXIT.usage);
      }, globals(cmd)),
    );

  program
    .command('stats [queue]')
    .description('queue depths and rates (every queue when none is named)')
    .option('--watch', 'refresh until Ctrl-C')
    .option('--interval <duration>', 'rate window and refresh interval', '1s')
    .action(async (queue: string | undefined, options, cmd: Command) =>
      run((ctx) => statsCommand(ctx, queue, options), globals(cmd)),
    );

  program
    .command('bench')
    .description('measure produce, promote and consume one at a time and together, on this Redis')
    .option('--jobs <n>', 'jobs per stage', '20000')
    .option('--concurrency <n>', "the worker's concurrency", '64')
    .option('--in-flight <n>', 'adds in flight at once', '64')
    .action(async (options, cmd: Command) => run((ctx) => benchCommand(ctx, options), globals(cmd)));

  program
    .command('doctor <queue>')
    .description('check that every job is in exactly one state; --repair fixes orphans and strays')
    .option('--repair', 'repair what it finds')
    .action(async (queue: string, options, cmd: Command) =>
      run((ctx) => doctorCommand(ctx, queue, options), globals(cmd)),
    );

  program
    .command('dashboard')
    .description('the web dashboard: queues, charts, jobs, dead letters, schedules, actions')
    .option('--port <port>', 'port to serve on', '7070')
    .option('--host <host>', 'address to bind; anything but loopback needs --token', '127.0.0.1')
    .option('--token <token>', 'require this token on every API call (default: $DUEQ_DASHBOARD_TOKEN)')
    .action(async (options, cmd: Command) => run((ctx) => dashboardCommand(ctx, options), globals(cmd)));

  program
    .command('demo')
    .description('the order-timeout story, live, on an embedded Redis')
    .option('--duration <duration>', 'how long new orders keep coming', '20s')
    .option('--orders-per-second <n>', 'how fast orders come', '4')
    .action(async (options, cmd: Command) => run((ctx) => demoCommand(ctx, options), globals(cmd)));

  return program;
}
