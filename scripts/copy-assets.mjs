// Files the compiled code reads at run time, copied next to it: the Lua scripts (read by the
// script loader) and the dashboard's page. The CLI entry must be executable.
import { chmodSync, cpSync } from 'node:fs';

cpSync('src/scripts/lua', 'dist/scripts/lua', { recursive: true });
cpSync('src/dashboard/public', 'dist/dashboard/public', { recursive: true });
chmodSync('dist/cli/index.js', 0o755);
