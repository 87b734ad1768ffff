import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { redisUrl } from '../support/harness.js';

const root = new URL('../../', import.meta.url);

/** The README's library example, run as a user would paste it: `import … from 'dueq'`. */
describe('README', () => {
  it('has a library example that works when pasted', async () => {
    const readme = readFileSync(new URL('README.md', root), 'utf8');
    const example = /```js\n(\/\/ example\.mjs[\s\S]*?)```/.exec(readme)?.[1];
    expect(example, 'the README has a ```js block starting with // example.mjs').toBeDefined();
    expect(existsSync(new URL('dist/index.js', root)), 'dist/ is built (npm test builds it first)').toBe(
      true,
    );
    // Inside the package, so that `import 'dueq'` resolves to this package by name.
    const dir = new URL('test/.tmp/', root);
    mkdirSync(dir, { recursive: true });
    const file = new URL('readme-example.mjs', dir);
    writeFileSync(file, example as string);
    const { stdout } = await promisify(execFile)(process.execPath, [file.pathname], {
      env: { ...process.env, REDIS_URL: redisUrl() },
      timeout: 20_000,
    });
    expect(stdout).toMatch(
      /^added job [\w-]+: \{ delayed: 1, ready: 0, active: 0, dead: 0, done: 0, paused: false \}$/m,
    );
    expect(stdout).toMatch(/^closing unpaid order 1001 \(attempt 1\)$/m);
  });
});
