// The Lua scripts are read at run time next to the compiled loader, so the build copies them
// from src/scripts to dist/scripts unchanged.
import { cpSync } from 'node:fs';

cpSync('src/scripts/lua', 'dist/scripts/lua', { recursive: true });
