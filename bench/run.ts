/**
 * `npm run bench`: the same workloads against dueq, BullMQ and bee-queue, on a redis-server of its
 * own, in one run; prints one table with dueq's ratio to each peer, and redis-benchmark's ceiling.
 * Options: --systems dueq,bullmq,bee-queue   --quick (a tenth of the jobs)   --docs (write
 * docs/benchmarks.md)   --only W1,W2,…   --scale (dueq start with 2 worker processes, W2 and W3).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { Redis } from 'ioredis';
import { RedisServer } from '../test/support/redis-server.js';
import { scaleRows } from './scale.js';
import { SYSTEMS } from './systems/index.js';
import type { System } from './systems/types.js';
import {
  type Env,
  type Outcome,
  w1Bulk,
  w1Single,
  w2Drain,
  w3Together,
  w4Burst,
  w5Spread,
} from './workloads.js';

interface Row {
  id: string;
  label: string;
  /** How to read a figure, and which direction is better. */
  kind: 'rate' | 'ms';
  target?: { op: '>=' | '<='; value: number };
  pick: (o: Outcome) => number | undefined;
}

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const option = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const scale = flag('--quick') ? 0.1 : 1;
const only = option('--only')?.split(',');
const wanted = (option('--systems') ?? 'dueq,bullmq,bee-queue').split(',');
const systems: System[] = wanted.map((key) => {
  const system = SYSTEMS[key];
  if (!system) throw new Error(`unknown system ${key}: use ${Object.keys(SYSTEMS).join(', ')}`);
  return system;
});
const n = (count: number) => Math.max(100, Math.round(count * scale));

type Runs = Map<string, Outcome>;

const WORKLOADS: { id: string; run: (env: Env) => Promise<Outcome> }[] = [
  { id: 'W1b', run: (env) => w1Bulk(env, n(50_000)) },
  { id: 'W1s', run: (env) => w1Single(env, n(50_000)) },
  { id: 'W2c1', run: (env) => w2Drain(env, n(20_000), 1) },
  { id: 'W2c16', run: (env) => w2Drain(env, n(20_000), 16) },
  { id: 'W2c64', run: (env) => w2Drain(env, n(20_000), 64) },
  { id: 'W3', run: (env) => w3Together(env, n(50_000)) },
  { id: 'W4', run: (env) => w4Burst(env, n(20_000)) },
  { id: 'W5', run: (env) => w5Spread(env, n(5_000)) },
];

const ROWS: Row[] = [
  {
    id: 'W1b',
    label: 'W1 enqueue 50k, bulk (jobs/s)',
    kind: 'rate',
    target: { op: '>=', value: 150_000 },
    pick: (o) => o.rate,
  },
  {
    id: 'W1s',
    label: 'W1 enqueue 50k, single adds, 64 in flight (jobs/s)',
    kind: 'rate',
    pick: (o) => o.rate,
  },
  { id: 'W2c1', label: 'W2 drain 20k, concurrency 1 (jobs/s)', kind: 'rate', pick: (o) => o.rate },
  { id: 'W2c16', label: 'W2 drain 20k, concurrency 16 (jobs/s)', kind: 'rate', pick: (o) => o.rate },
  {
    id: 'W2c64',
    label: 'W2 drain 20k, concurrency 64 (jobs/s)',
    kind: 'rate',
    target: { op: '>=', value: 50_000 },
    pick: (o) => o.rate,
  },
  {
    id: 'W3',
    label: 'W3 produce + consume 50k, 2 processes (jobs/s)',
    kind: 'rate',
    target: { op: '>=', value: 40_000 },
    pick: (o) => o.rate,
  },
  {
    id: 'W4',
    label: 'W4 20k due at once: last job after due (ms)',
    kind: 'ms',
    target: { op: '<=', value: 500 },
    pick: (o) => o.lastMs,
  },
  { id: 'W4', label: 'W4 lateness p50 (ms)', kind: 'ms', pick: (o) => o.lateness?.p50 },
  { id: 'W4', label: 'W4 lateness p99 (ms)', kind: 'ms', pick: (o) => o.lateness?.p99 },
  { id: 'W5', label: 'W5 5k over 0.2–5 s: lateness p50 (ms)', kind: 'ms', pick: (o) => o.lateness?.p50 },
  {
    id: 'W5',
    label: 'W5 lateness p99 (ms)',
    kind: 'ms',
    target: { op: '<=', value: 5 },
    pick: (o) => o.lateness?.p99,
  },
  {
    id: 'W5',
    label: 'W5 lateness max (ms)',
    kind: 'ms',
    target: { op: '<=', value: 25 },
    pick: (o) => o.lateness?.max,
  },
  {
    id: 'W4',
    label: 'W6 PING round trip during W4, p99 (ms)',
    kind: 'ms',
    target: { op: '<=', value: 2 },
    pick: (o) => o.ping?.p99,
  },
  { id: 'W4', label: 'W6 PING round trip during W4, max (ms)', kind: 'ms', pick: (o) => o.ping?.max },
];

function fmt(value: number | undefined, kind: Row['kind']): string {
  if (value === undefined || Number.isNaN(value)) return '–';
  if (kind === 'rate') return Math.round(value).toLocaleString('en-US');
  return value < 10
    ? value.toFixed(2)
    : value < 100
      ? value.toFixed(1)
      : Math.round(value).toLocaleString('en-US');
}

function redisBenchmark(port: number): { single: number; pipelined: number } {
  const run = (pipeline: number) => {
    const out = execFileSync(
      'redis-benchmark',
      [
        '-h',
        '127.0.0.1',
        '-p',
        String(port),
        '-c',
        '50',
        '-n',
        '300000',
        '-P',
        String(pipeline),
        '-t',
        'set,get',
        '-q',
      ],
      {
        encoding: 'utf8',
      },
    );
    const rates = [...out.matchAll(/([\d.]+) requests per second/g)].map((m) => Number(m[1]));
    return rates.reduce((a, b) => a + b, 0) / Math.max(rates.length, 1);
  };
  return { single: run(1), pipelined: run(16) };
}

function machine(redisVersion: string): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model.trim() ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, Redis ${redisVersion}`;
}

async function main(): Promise<void> {
  const server = await RedisServer.start();
  const admin = new Redis(server.url);
  const results = new Map<string, Runs>();
  try {
    const redisVersion = /redis_version:(\S+)/.exec(await admin.info('server'))?.[1] ?? '?';
    console.log(
      `dueq benchmark: ${machine(redisVersion)}${scale < 1 ? ' (quick: a tenth of the jobs)' : ''}\n`,
    );
    for (const system of systems) {
      const runs: Runs = new Map();
      results.set(system.key, runs);
      // A short unmeasured round first, so that no library is measured while V8 still compiles it.
      process.stdout.write(`${system.name.padEnd(10)} warm-up … `);
      await w1Bulk({ url: server.url, system, admin }, 20_000);
      await w2Drain({ url: server.url, system, admin }, 5_000, 64);
      await admin.flushall();
      console.log('done');
      for (const workload of WORKLOADS) {
        if (only && !only.includes(workload.id.replace(/[bsc].*$/, ''))) continue;
        process.stdout.write(`${system.name.padEnd(10)} ${workload.id.padEnd(6)} … `);
        let outcome: Outcome;
        try {
          outcome = await workload.run({ url: server.url, system, admin });
        } catch (error) {
          outcome = { duplicates: 0, missing: 0, error: (error as Error).message };
        }
        await admin.flushall();
        runs.set(workload.id, outcome);
        const figures = ROWS.filter((r) => r.id === workload.id)
          .map((r) => fmt(r.pick(outcome), r.kind))
          .join(' / ');
        const check = outcome.error
          ? `failed: ${outcome.error}`
          : outcome.duplicates || outcome.missing
            ? `ran twice ${outcome.duplicates}, never ${outcome.missing}`
            : 'each job once';
        console.log(`${figures}  (${check})`);
      }
    }
    const ceiling = redisBenchmark(server.port);
    const scaled =
      flag('--scale') && systems.some((s) => s.key === 'dueq') ? await scaleRows(server.url, admin, n) : [];
    const table = render(results, ceiling, scaled);
    console.log(`\n${table}`);
    if (flag('--docs')) writeDocs(table, machine(redisVersion));
  } finally {
    admin.disconnect();
    await server.stop();
  }
}

function render(
  results: Map<string, Runs>,
  ceiling: { single: number; pipelined: number },
  scaled: string[][],
): string {
  const names = systems.map((s) => s.name);
  const peers = systems.filter((s) => s.key !== 'dueq');
  const header = ['Workload', ...names, ...peers.map((p) => `dueq ÷ ${p.name}`), 'Target'];
  const lines = [header, header.map(() => '---')];
  for (const row of ROWS) {
    const value = (key: string) => {
      const outcome = results.get(key)?.get(row.id);
      return outcome?.error ? undefined : outcome && row.pick(outcome);
    };
    const ours = value('dueq');
    const cells = systems.map((s) => fmt(value(s.key), row.kind));
    const ratios = peers.map((p) => {
      const theirs = value(p.key);
      if (ours === undefined || theirs === undefined || ours <= 0 || theirs <= 0) return '–';
      // Shown so that bigger is better for dueq: throughput ours/theirs, times theirs/ours.
      const ratio = row.kind === 'rate' ? ours / theirs : theirs / ours;
      return `${ratio >= 10 ? Math.round(ratio) : ratio.toFixed(1)}×`;
    });
    const target = row.target
      ? `${row.target.op === '>=' ? '≥' : '≤'} ${fmt(row.target.value, row.kind)}${ours === undefined ? '' : (row.target.op === '>=' ? ours >= row.target.value : ours <= row.target.value) ? ' ✓' : ' ✗'}`
      : '';
    lines.push([row.label, ...cells, ...ratios, target]);
  }
  const once = systems.map((s) => {
    const bad = [...(results.get(s.key)?.values() ?? [])].reduce((n, o) => n + o.duplicates + o.missing, 0);
    const failed = [...(results.get(s.key)?.values() ?? [])].filter((o) => o.error).length;
    return failed ? `${failed} failed` : bad === 0 ? 'yes' : `no (${bad})`;
  });
  lines.push(['Every job ran exactly once', ...once, ...peers.map(() => ''), '']);
  lines.push([
    `redis-benchmark SET/GET, 50 clients (commands/s)`,
    `${fmt(ceiling.single, 'rate')} single, ${fmt(ceiling.pipelined, 'rate')} with -P 16`,
    ...systems.slice(1).map(() => ''),
    ...peers.map(() => ''),
    '',
  ]);
  for (const row of scaled) lines.push([...row, ...Array(header.length - row.length).fill('')]);
  return lines.map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

function writeDocs(table: string, machineLine: string): void {
  const versions = systems.map((s) => `${s.name} ${s.version}`).join(', ');
  const date = new Date().toISOString().slice(0, 10);
  const template = new URL('./benchmarks.template.md', import.meta.url);
  const text = readTemplate(template)
    .replace('{{date}}', date)
    .replace('{{machine}}', machineLine)
    .replace('{{versions}}', versions)
    .replace('{{table}}', table);
  writeFileSync(new URL('../docs/benchmarks.md', import.meta.url), text);
  console.log('\nwrote docs/benchmarks.md');
}

function readTemplate(url: URL): string {
  return readFileSync(url, 'utf8');
}

await main();
