import picocolors from 'picocolors';

/**
 * Colours only for a terminal: picocolors also turns them on whenever CI is set, which would put
 * escape codes into output that scripts read. NO_COLOR and FORCE_COLOR are honoured.
 */
function enabled(stream: NodeJS.WriteStream): boolean {
  if ('NO_COLOR' in process.env) return false;
  if ('FORCE_COLOR' in process.env) return true;
  return stream.isTTY === true && process.env.TERM !== 'dumb';
}

/** Colours for standard output. */
export const pc = picocolors.createColors(enabled(process.stdout));
/** Colours for standard error. */
export const pcErr = picocolors.createColors(enabled(process.stderr));
