// The Lua scripts are read at run time next to the compiled loader, so the build copies them
// from src/scripts to dist/scripts unchanged; and the CLI entry must be executable.
import { chmodSync, cpSync } from 'node:fs';

cpSync('src/scripts/lua', 'dist/scripts/lua', { recursive: true });
chmodSync('dist/cli/index.js', 0o755);
