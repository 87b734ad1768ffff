import { readdir } from 'node:fs/promises';
import { extname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import { JobLoadError } from '../errors.js';
import { isJobDefinition, type JobDefinition } from './define-job.js';

const EXTENSIONS = new Set(['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts']);
const TYPESCRIPT = new Set(['.ts', '.mts', '.cts']);

/** Job files: one per type. Declarations, tests, and names starting with `_` or `.` are skipped. */
function isJobFile(name: string): boolean {
  return (
    EXTENSIONS.has(extname(name)) &&
    !/\.d\.[mc]?ts$/.test(name) &&
    !/\.(test|spec)\.[mc]?[jt]s$/.test(name) &&
    !name.startsWith('_') &&
    !name.startsWith('.')
  );
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.split('\n')[0] ?? text;
}

/**
 * Loads every job file of a directory (`export default defineJob({ … })`), TypeScript included,
 * without a build step. Adding a job type is adding a file: no configuration changes. Any file
 * that fails to load, or does not export a job, stops the load with an error that names it.
 */
export async function loadJobsDirectory(dir: string): Promise<JobDefinition[]> {
  const root = resolve(dir);
  let names: string[];
  try {
    names = (await readdir(root, { withFileTypes: true }))
      .filter((e) => e.isFile() && isJobFile(e.name))
      .map((e) => e.name);
  } catch (cause) {
    throw new JobLoadError(dir, `cannot read the jobs directory (${firstLine(cause)})`, { cause });
  }
  if (names.length === 0) throw new JobLoadError(dir, 'no job files (.js, .mjs, .ts) in the jobs directory');

  const definitions: JobDefinition[] = [];
  const definedIn = new Map<string, string>();
  for (const name of names.sort()) {
    const file = join(root, name);
    const shown = relative(process.cwd(), file) || file;
    let module: { default?: unknown };
    try {
      const url = pathToFileURL(file).href;
      module = TYPESCRIPT.has(extname(name)) ? await tsImport(url, import.meta.url) : await import(url);
    } catch (cause) {
      throw new JobLoadError(shown, `failed to load: ${firstLine(cause)}`, { cause });
    }
    // A CommonJS or transpiled module may wrap its default export once more.
    let definition = module.default;
    if (!isJobDefinition(definition) && isJobDefinition((definition as { default?: unknown })?.default)) {
      definition = (definition as { default: unknown }).default;
    }
    if (!isJobDefinition(definition)) {
      throw new JobLoadError(
        shown,
        'its default export is not a job; write `export default defineJob({ type, handle })`',
      );
    }
    const earlier = definedIn.get(definition.type);
    if (earlier)
      throw new JobLoadError(shown, `defines job type "${definition.type}", already defined in ${earlier}`);
    definedIn.set(definition.type, shown);
    definitions.push(definition);
  }
  return definitions;
}
