#!/usr/bin/env node
/**
 * The `dueq` executable. Every command ends with a meaningful exit code (output.ts: EXIT) and
 * reports an error as one clear line, with the stack only under --verbose.
 */
import { CommanderError } from 'commander';
import { contextFrom } from './context.js';
import { EXIT, exitCodeFor, printError } from './output.js';
import { buildProgram } from './program.js';

let verbose = process.argv.includes('--verbose');

const program = buildProgram(async (fn, options) => {
  verbose = options.verbose === true;
  const code = await fn(contextFrom(options));
  if (typeof code === 'number') process.exitCode = code;
});

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Commander printed its message already; help and version are not errors.
    process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } else {
    printError(error, verbose);
    process.exitCode = exitCodeFor(error);
  }
}
