import { readFileSync } from 'node:fs';
import type { Cluster, Redis } from 'ioredis';

/**
 * The Lua scripts, one file per state change under ./lua. A line `-- @include lib/x.lua` is
 * replaced by that file, so shared steps (time, wake, promote, backoff) are written once.
 * Scripts are read on first use, never at import, and registered on each connection with
 * ioredis `defineCommand`, which calls them by SHA and reloads them after NOSCRIPT (a restart or
 * failover). They are never wrapped in MULTI, where that reload does not happen (DESIGN §6).
 */
export const SCRIPT_FILES = {
  add: 'add.lua',
  claim: 'claim.lua',
  complete: 'complete.lua',
  fail: 'fail.lua',
  retryIn: 'retry-in.lua',
  extend: 'extend.lua',
  release: 'release.lua',
  progress: 'progress.lua',
  reclaim: 'reclaim.lua',
  promote: 'promote.lua',
  cancel: 'cancel.lua',
  runNow: 'run-now.lua',
  deadReplay: 'dead-replay.lua',
  deadRemove: 'dead-remove.lua',
  deadPurge: 'dead-purge.lua',
  trimDone: 'trim-done.lua',
  counts: 'counts.lua',
  pause: 'pause.lua',
  locate: 'locate.lua',
  repair: 'repair.lua',
  scheduleSet: 'schedule-set.lua',
  scheduleRemove: 'schedule-remove.lua',
  scheduleFire: 'schedule-fire.lua',
  lockRelease: 'lock-release.lua',
  lockExtend: 'lock-extend.lua',
  onceBegin: 'once-begin.lua',
  onceFinish: 'once-finish.lua',
  onceExtend: 'once-extend.lua',
  trimSeries: 'trim-series.lua',
} as const;

export type ScriptName = keyof typeof SCRIPT_FILES;

const LUA_DIR = new URL('./lua/', import.meta.url);
const INCLUDE = /^-- @include (\S+)$/gm;
let sources: Map<ScriptName, string> | undefined;

function readScript(file: string): string {
  const text = readFileSync(new URL(file, LUA_DIR), 'utf8');
  return text.replace(INCLUDE, (_line, lib: string) => readFileSync(new URL(lib, LUA_DIR), 'utf8'));
}

export function scriptSources(): Map<ScriptName, string> {
  if (!sources) {
    sources = new Map();
    for (const [name, file] of Object.entries(SCRIPT_FILES) as [ScriptName, string][]) {
      sources.set(name, readScript(file));
    }
  }
  return sources;
}

export function commandName(name: ScriptName): string {
  return `dueq_${name}`;
}

const registered = new WeakSet<Redis | Cluster>();

/** Runs a registered script: the key count first, as batch scripts vary it. */
export function runScript<T>(
  client: Redis | Cluster,
  name: ScriptName,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<T> {
  registerScripts(client);
  const command = (client as unknown as Record<string, (...a: (string | number)[]) => Promise<T>>)[
    commandName(name)
  ];
  if (!command) throw new Error(`Script ${name} is not registered on this connection`);
  return command.call(client, keys.length, ...keys, ...args);
}

/** Registers every script on a connection (once per connection object). */
export function registerScripts(client: Redis | Cluster): void {
  if (registered.has(client)) return;
  for (const [name, lua] of scriptSources()) {
    // numberOfKeys is left out: each call passes its key count first, as batch scripts vary it.
    client.defineCommand(commandName(name), { lua });
  }
  registered.add(client);
}
